"""A signer's lasting copy of the packet's documents: a link per document that opens it as a
PDF (a phone shows it; a zip it may not open), working for COPY_LINK_DAYS like the emailed zip
link and with its key (signer_copy_url): the document as it stands until the
packet is sealed, the sealed one after. Offered on the completion page, in the answer to
finishing (the signing page's done state) and in the signerComplete event (``documents``), so
that an embedded signer, who gets no email, keeps a copy too."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.core import signing
from django.urls import reverse

from esign.documents import document_filename
from esign.models import Signer

# How long the link to a signer's copy of the sealed documents works.
COPY_LINK_DAYS = 90
_COPY_SALT = "esign.signer-copy"


def signer_copy_url(signer: Signer) -> str:
    """A link to ``signer``'s copy of the packet's sealed documents (a zip), signed with the
    service's SECRET_KEY; it works for COPY_LINK_DAYS."""
    key = signing.TimestampSigner(salt=_COPY_SALT).sign(signer.eid)
    path = reverse("esign-signer-copy", args=[signer.eid])
    return f"{settings.PUBLIC_BASE_URL}{path}?key={key}"


def signer_of_copy_link(*, signer_eid: str, key: str) -> Signer | None:
    """The signer a copy link is for, while it works."""
    try:
        eid = signing.TimestampSigner(salt=_COPY_SALT).unsign(
            key, max_age=timedelta(days=COPY_LINK_DAYS)
        )
    except signing.BadSignature:
        return None
    if eid != signer_eid:
        return None
    return Signer.objects.select_related("packet__organization").filter(eid=eid).first()


def signer_copies(signer: Signer) -> list[dict[str, str]]:
    """[{id, title, filename, url}] for each document of ``signer``'s packet."""
    # The zip link's key opens the documents one by one as well.
    key = parse_qs(urlsplit(signer_copy_url(signer)).query)["key"][0]
    out = []
    for document in signer.packet.documents.all():
        path = reverse("esign-signer-copy-document", args=[signer.eid, document.alias_id])
        out.append(
            {
                "id": document.alias_id,
                "title": document.title or document.filename,
                "filename": document_filename(document),
                "url": f"{settings.PUBLIC_BASE_URL}{path}?key={key}",
            }
        )
    return out
