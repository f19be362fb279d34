"""GET /download/<weld_data_eid>.zip: a completed submission's documents, for API keys.

404 for a submission of another organization (as for a missing one), 409 before it is
completed; with a signing step, 503 with Retry-After while the signed PDFs are being sealed.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import error_response
from core.openapi import RATE_LIMIT_HEADERS, error_responses, ref
from core.responses import file_response
from esign.sealing import SealPending
from workflows.submissions.files import documents_zip
from workflows.submissions.reads import submission_get


class SubmissionZipApi(APIView):
    @extend_schema(
        operation_id="downloadWeldData",
        summary="Download a completed workflow submission's documents",
        description="A zip of the PDFs the workflow filled from the webforms. When the workflow "
        "has a signing step, the zip is the signed packet's: its sealed PDFs and `audit-trail.pdf`"
        " (503 with `Retry-After` until they are sealed). The `weldComplete` webhook gives this "
        "URL in `data.documents`.",
        tags=["workflows"],
        responses={
            (200, "application/zip"): OpenApiResponse(
                response=OpenApiTypes.BINARY, description="The zip."
            ),
            409: OpenApiResponse(
                response=ref("Error"),
                description="The submission is not completed yet.",
                examples=[
                    OpenApiExample(
                        "Not completed",
                        value={
                            "name": "ConflictError",
                            "message": "The submission is in-progress: its documents can be "
                            "downloaded once it is completed.",
                        },
                        response_only=True,
                    )
                ],
            ),
            503: OpenApiResponse(
                response=ref("Error"), description="The signed documents are being sealed."
            ),
            **error_responses([401, 404, 429, 500]),
        },
        parameters=RATE_LIMIT_HEADERS,
    )
    def get(self, request: Request, weld_data_eid: str) -> HttpResponse:
        submission = submission_get(organization=request.user.organization, eid=weld_data_eid)
        try:
            data, filename = documents_zip(submission)
        except SealPending as pending:
            response = error_response(pending, Response)  # with its Retry-After
            # A passing state clients poll: not an ERROR line per poll (see esign.api).
            response._has_been_logged = True  # type: ignore[attr-defined]
            return response
        return file_response(data, filename=filename, content_type="application/zip")
