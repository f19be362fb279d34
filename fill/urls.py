"""REST routes of the fill app, mounted under /api/v1/."""

from django.urls import path

from fill.api import FillPdfApi

urlpatterns = [
    path("fill/<eid:template_eid>.pdf", FillPdfApi.as_view(), name="fill-pdf"),
]
