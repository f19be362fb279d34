"""REST routes of the generate app, mounted under /api/v1/."""

from django.urls import path

from generate.api import GeneratePdfApi, GeneratePdfJobApi

urlpatterns = [
    path("generate-pdf", GeneratePdfApi.as_view(), name="generate-pdf"),
    path("generate-pdf/jobs/<eid:eid>", GeneratePdfJobApi.as_view(), name="generate-pdf-job"),
]
