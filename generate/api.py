"""REST edge of generate: POST /api/v1/generate-pdf (the wire name the published clients use)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import ValidationFailed
from core.openapi import RATE_LIMIT_HEADERS, api_operation, error_responses, ref
from generate import openapi
from generate.jobs import (
    generate_job_create,
    generate_job_get,
    generate_job_pdf,
    generate_job_summary,
)
from generate.models import GenerateJob
from generate.services import pdf_generate
from idempotency.views import idempotent

# The query's async flag, as a boolean: anything else (async=-1, async=yes) is refused, not
# taken for false.
ASYNC_VALUES = {"true": True, "1": True, "false": False, "0": False}


def _is_async(request: Request) -> bool:
    raw = request.query_params.get("async")
    if raw is None:
        return False
    if raw.lower() not in ASYNC_VALUES:
        raise ValidationFailed.single("async", "Must be true or false.")
    return ASYNC_VALUES[raw.lower()]


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
        other_answers={
            (202, "application/json"): OpenApiResponse(
                response=ref("GeneratePdfJob"),
                description="With `async=true`: the job, started; its `statusURL` (also in "
                "`Location`) gives its status, then its PDF.",
            )
        },
        examples=openapi.EXAMPLES,
        parameters=[
            OpenApiParameter(
                "async",
                bool,
                description="Extension: `true` answers 202 with the job's status (JSON) and its "
                "`statusURL` (also in `Location`) at once, and renders in the background.",
            ),
            OpenApiParameter(
                "webhookURL",
                str,
                description="Extension, with `async=true`: where the `generatePdfJobFinished` "
                "webhook event announces the job's end (default: the organization's webhook URL).",
            ),
        ],
    )
    @idempotent()
    def post(self, request: Request) -> HttpResponse:
        identity = request.user
        if _is_async(request):
            job = generate_job_create(
                organization=identity.organization,
                watermark=identity.is_development,
                body=request.data,
                webhook_url=request.query_params.get("webhookURL", ""),
            )
            summary = generate_job_summary(job)
            return Response(summary, status=202, headers={"Location": summary["statusURL"]})
        if "webhookURL" in request.query_params:
            # A request that waits for its PDF has nothing to announce: say so, not ignore it.
            raise ValidationFailed.single(
                "webhookURL", "webhookURL is only for asynchronous requests (async=true)."
            )
        pdf = pdf_generate(
            organization=identity.organization,
            watermark=identity.is_development,
            body=request.data,
        )
        return HttpResponse(pdf, content_type="application/pdf")


class GeneratePdfJobApi(APIView):
    """An asynchronous generate job: its status while it runs, then its PDF."""

    @extend_schema(
        operation_id="getGeneratePdfJob",
        summary="The status of an asynchronous generate job, or its PDF once done",
        description=openapi.JOB_DESCRIPTION,
        tags=["generate"],
        responses={
            (200, "application/pdf"): OpenApiResponse(
                response=OpenApiTypes.BINARY, description="The job is done: its PDF."
            ),
            (202, "application/json"): OpenApiResponse(
                response=ref("GeneratePdfJob"), description="Pending or running."
            ),
            (200, "application/json"): OpenApiResponse(
                response=ref("GeneratePdfJob"),
                description="Failed: the status with its `error` (the wire error).",
            ),
            **error_responses([401, 404, 429, 500]),
        },
        parameters=RATE_LIMIT_HEADERS,
    )
    def get(self, request: Request, eid: str) -> HttpResponse:
        job = generate_job_get(organization=request.user.organization, eid=eid)
        if job.status == GenerateJob.Status.DONE:
            return HttpResponse(generate_job_pdf(job), content_type="application/pdf")
        summary = generate_job_summary(job)
        # Not there yet: 202 while it runs; a failed job's status (with its error) is a 200.
        status = 200 if job.status == GenerateJob.Status.FAILED else 202
        return Response(summary, status=status)
