"""Routes of workflows: the webform pages people fill (/form/...) and the documents' download
for API keys (/download/<weld_data_eid>.zip)."""

from django.urls import path, re_path

from workflows.api import SubmissionZipApi
from workflows.pages import views

_FORM = r"^form/(?P<organization_slug>[-\w]+)/(?P<workflow_slug>[-a-z0-9]+)"
_SUBMISSION = _FORM + r"/(?P<eid>[0-9A-Za-z]{20})"

urlpatterns = [
    re_path(_FORM + r"$", views.start, name="workflows-start"),
    re_path(_FORM + r"/embed-demo$", views.embed_demo, name="workflows-embed-demo"),
    re_path(_SUBMISSION + r"$", views.resume, name="workflows-continue"),
    re_path(
        _SUBMISSION + r"/documents/(?P<index>[0-9]{1,3})\.pdf$",
        views.document,
        name="workflows-document",
    ),
    re_path(_SUBMISSION + r"/documents\.zip$", views.documents_zip, name="workflows-documents-zip"),
    path(
        "download/<eid:weld_data_eid>.zip",
        SubmissionZipApi.as_view(),
        name="workflows-download-zip",
    ),
]
