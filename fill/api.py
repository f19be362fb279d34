"""POST /api/v1/fill/<template_eid>.pdf: the filled PDF as raw bytes."""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.views import APIView

from core.openapi import api_operation, ref
from core.responses import file_response
from fill import openapi
from fill.services import fill_template
from idempotency.views import idempotent
from templates_app.services import parse_version_number


class FillPdfApi(APIView):
    @api_operation(
        operation_id="fillPdf",
        summary="Fill a PDF template",
        description=openapi.fill_description(),
        tags=["fill"],
        request=ref("FillRequest"),
        parameters=[openapi.TEMPLATE_EID, openapi.VERSION_NUMBER, *openapi.IGNORED_KEYS_HEADERS],
        success=(200, "application/pdf", "The filled PDF."),
        errors=[400, 404, 413, 503],
        examples=openapi.EXAMPLES,
    )
    @idempotent(keep_answer=False)
    def post(self, request: Request, template_eid: str) -> HttpResponse:
        filled = fill_template(
            organization=request.user.organization,
            template_eid=template_eid,
            version_number=parse_version_number(request.query_params.get("versionNumber")),
            body=request.data,
        )
        response = file_response(
            filled.pdf,
            filename=f"{template_eid}.pdf",
            content_type="application/pdf",
            attachment=False,
        )
        if filled.ignored_keys:
            response[openapi.IGNORED_KEYS_HEADER] = openapi.ignored_keys_header(filled.ignored_keys)
            response[openapi.IGNORED_KEYS_COUNT_HEADER] = str(len(filled.ignored_keys))
        return response
