"""The verification mark of a packet's sealed documents (createEtchPacket's
``verificationStamp``): a QR code and a short link on every page, drawn by
esign.engine.verification_mark just before the seal (esign.sealing.seal), so the seal covers it.

The link names the document by its hash: the first MARK_DIGITS hex digits of the SHA-256 of the
document as every signer signed it (``current_sha256``, the file the seal step is given). The
sealed file's own hash cannot be printed in it (the mark is part of what it hashes, and the seal
comes after), and that prefix is known to nobody who has not held the document (96 bits). /verify
opened with it (``?d=``) says whether this service sealed that document, when, and the SHA-256 of
the sealed file, and offers the upload that checks a PDF copy (esign.verify.views).

When is it drawn, and why then: the seal is the service's only PAdES signature on a document
today (signers' marks are drawn into the pages, each rewriting the file), so drawing into the
content right before the seal keeps every signature valid. A document that already holds a
signature of its own when it is sealed (a signer's PAdES signature, should one be added as an
incremental revision) is left unmarked and logged, since drawing into its pages would break that
signature, and pyHanko treats an annotation added after it as a change as well.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.urls import reverse

from core.resources import font_library
from esign.engine.verification_mark import carries_signatures, verification_mark
from esign.models import Packet, PacketDocument

logger = logging.getLogger(__name__)

MARK_DIGITS = 24  # hex digits of the hash in the link: 96 bits, and a QR code of version 4
MARK_PARAMETER = "d"
_DIGITS = re.compile(rf"[0-9a-f]{{{MARK_DIGITS},64}}")


def mark_url(document: PacketDocument) -> str:
    """The link the mark of ``document`` carries (its QR code and its words)."""
    path = reverse("pdf-verify")
    digits = document.current_sha256[:MARK_DIGITS]
    return f"{settings.PUBLIC_BASE_URL}{path}?{MARK_PARAMETER}={digits}"


def marked_pdf(packet: Packet, document: PacketDocument, pdf: bytes) -> bytes:
    """``pdf`` (``document`` as it stands) with its verification mark when ``packet`` asked for
    one; as it is otherwise, or when it holds a signature that drawing would break."""
    if not packet.verification_stamp:
        return pdf
    if carries_signatures(pdf):
        logger.warning(
            "seal: document %s of packet %s holds a signature; left without its verification "
            "mark (drawing into its pages would break that signature)",
            document.alias_id,
            packet.eid,
        )
        return pdf
    url = mark_url(document)
    words = "Verify this document: " + re.sub(r"^https?://", "", url)
    return verification_mark(pdf, url=url, words=words, fonts=font_library())


@dataclass(frozen=True)
class MarkedDocument:
    """What /verify shows for a mark's link: the document this service sealed."""

    title: str
    pages: int
    sealed_at: datetime | None
    sealed_sha256: str


def marked_document(digits: str) -> MarkedDocument | None:
    """The sealed document a mark's link (``?d=``) names, or None: none sealed here has it (or
    the value is not a hash's digits)."""
    digits = digits.strip().lower()
    if not _DIGITS.fullmatch(digits):
        return None
    document = (
        PacketDocument.objects.filter(
            current_sha256__startswith=digits,
            packet__verification_stamp=True,
            packet__seal_status=Packet.SealStatus.SEALED,
        )
        .exclude(sealed_sha256="")
        .select_related("packet")
        .order_by("pk")
        .first()
    )
    if document is None:
        return None
    return MarkedDocument(
        title=document.title or document.filename,
        pages=document.page_count,
        sealed_at=document.packet.sealed_at,
        sealed_sha256=document.sealed_sha256,
    )
