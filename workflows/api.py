"""GET /download/<weld_data_eid>.zip: a completed submission's documents, for API keys."""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework.request import Request
from rest_framework.views import APIView

from workflows.submissions import documents_zip, submission_get


class SubmissionZipApi(APIView):
    def get(self, request: Request, weld_data_eid: str) -> HttpResponse:
        submission = submission_get(organization=request.user.organization, eid=weld_data_eid)
        data, filename = documents_zip(submission)
        response = HttpResponse(data, content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
