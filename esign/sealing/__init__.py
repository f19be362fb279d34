"""Sealing completed packets (every document and the certificate of completion, with the
service's seal), what the seal is made with, the renewal of its archive timestamps, and the
download of the sealed documents (sealed, or nothing).

This face lists what other apps use; esign's own modules import the modules themselves."""

from __future__ import annotations

from esign.sealing.downloads import (
    SealFailed,
    SealPending,
    check_sealed,
    document_group_archive,
)

__all__ = ["SealFailed", "SealPending", "check_sealed", "document_group_archive"]
