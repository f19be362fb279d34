"""GET /api/document-group/<eid>.zip: a completed packet's signed documents, for API keys."""

from __future__ import annotations

import io
import re
import zipfile

from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.views import APIView

from core.errors import Conflict, NotFound
from esign import services
from esign.models import DocumentGroup, Packet

_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")


def _safe_name(name: str, default: str) -> str:
    cleaned = _UNSAFE.sub("_", name).strip(" .") or default
    return cleaned[:120]


class DocumentGroupZipApi(APIView):
    def get(self, request: Request, group_eid: str) -> HttpResponse:
        organization = request.user.organization
        try:
            group = DocumentGroup.objects.select_related("packet").get(
                packet__organization=organization, eid=group_eid
            )
        except DocumentGroup.DoesNotExist:
            raise NotFound(f"No document group with eid '{group_eid}'.") from None
        packet = group.packet
        if packet.status != Packet.Status.COMPLETED:
            raise Conflict(
                f"The packet is {packet.status}: its documents can be downloaded once every "
                "signer has signed."
            )
        buffer = io.BytesIO()
        names: set[str] = set()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for document in packet.documents.all():
                name = _safe_name(document.filename, f"{document.alias_id}.pdf")
                if not name.lower().endswith(".pdf"):
                    name += ".pdf"
                while name in names:
                    name = name[:-4] + "-1.pdf"
                names.add(name)
                archive.writestr(name, services.document_pdf(document))
        response = HttpResponse(buffer.getvalue(), content_type="application/zip")
        filename = _safe_name(packet.name, group.eid).replace('"', "")
        response["Content-Disposition"] = f'attachment; filename="{filename}.zip"'
        return response
