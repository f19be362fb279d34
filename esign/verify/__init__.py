"""Verifying a PDF someone holds: its signatures, and whether this service sealed it, for the
public page /verify and ``POST /api/v1/verify``, with the bound on verifications per address.

This face lists what other apps use; esign's own modules import the modules themselves."""

from __future__ import annotations

from esign.verify.views import verify_page

__all__ = ["verify_page"]
