"""REST edge of generate: POST /api/v1/generate-pdf (the wire name the published clients use)."""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.views import APIView

from core.openapi import api_operation, ref
from generate import openapi
from generate.services import pdf_generate
from idempotency.views import idempotent


class GeneratePdfApi(APIView):
    """HTML/CSS or a Markdown array in (JSON or multipart), the PDF's bytes out."""

    @api_operation(
        operation_id="generatePdf",
        summary="Generate a PDF from HTML/CSS or Markdown",
        description=openapi.generate_description(),
        tags=["generate"],
        request=ref("GenerateRequest"),
        success=(200, "application/pdf", "The new PDF."),
        errors=[400, 413, 422, 503],
        examples=openapi.EXAMPLES,
    )
    @idempotent()
    def post(self, request: Request) -> HttpResponse:
        identity = request.user
        pdf = pdf_generate(
            organization=identity.organization,
            watermark=identity.is_development,
            body=request.data,
        )
        return HttpResponse(pdf, content_type="application/pdf")
