"""REST edge of generate: POST /api/v1/generate-pdf (the wire name the published clients use)."""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.views import APIView

from generate.services import pdf_generate


class GeneratePdfApi(APIView):
    """HTML/CSS or a Markdown array in (JSON or multipart), the PDF's bytes out."""

    def post(self, request: Request) -> HttpResponse:
        pdf = pdf_generate(identity=request.user, body=request.data)
        return HttpResponse(pdf, content_type="application/pdf")
