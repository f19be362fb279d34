"""Reaching a signer: their signing links (a token each, expiring, revocable), the one-time
codes some must enter first (by email or SMS), and the emails that carry the links (an outbox
sent by tasks), with the caps on how often a new link may be asked for.

This face lists what other apps use; esign's own modules import the modules themselves."""

from __future__ import annotations

from esign.links.tokens import sign_url_generate, signer_link

__all__ = ["sign_url_generate", "signer_link"]
