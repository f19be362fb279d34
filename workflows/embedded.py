"""What the embedded webform builder (builders.workflow_views) uses of workflows: the admin's
builder (workflows.builder) on one webform, without the admin's session. Another app reaches the
rooms only through a face; this is the builder's.

The draft the live preview shows is kept by the caller (the embedded builder keys it by its
link, since an iframe's third-party cookies are blocked): here it is an argument."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from accounts.models import Organization
from core.errors import NotFound
from workflows.builder.catalogue import catalogue_json
from workflows.builder.state import builder_state, preview_definition, webform_build
from workflows.definitions.versions import workflow_get, workflow_publish
from workflows.models import Webform, Workflow
from workflows.pages import views

__all__ = [
    "builder_state",
    "catalogue_json",
    "webform_build",
    "webform_of",
    "webform_preview",
    "workflow_get",
    "workflow_publish",
]


def webform_of(*, organization: Organization, workflow_eid: str, webform_eid: str = "") -> Webform:
    """The webform the builder opens: ``webform_eid`` of the organization's workflow
    ``workflow_eid``, else its first webform. NotFound for another organization's."""
    workflow: Workflow = workflow_get(organization=organization, eid=workflow_eid)
    webforms = workflow.webforms.order_by("position", "id")
    webform = webforms.filter(eid=webform_eid).first() if webform_eid else webforms.first()
    if webform is None:
        raise NotFound(
            f"No webform with eid '{webform_eid}' in this workflow."
            if webform_eid
            else "The workflow has no webform to build."
        )
    return webform


def webform_preview(request: HttpRequest, webform: Webform, draft: Any) -> HttpResponse:
    """The preview's page of the workflow with ``webform`` as drafted (as saved when None)."""
    definition = preview_definition(webform, draft) if draft is not None else None
    return views.preview(request, webform.workflow, definition)
