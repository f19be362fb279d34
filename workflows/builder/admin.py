"""The webform admin and its builder: pages and their fields in a list, the settings of the
selected one, and a live preview of its page (static/workflows/builder/, docs/workflows.md).

Every view of a webform here goes through ``WebformAdmin._webform_for_change``: the admin's
staff login, CSRF protection, the organizations the user sees (404 for the others) and the
change permission, which only an organization's owners and admins hold (403). The builder's
endpoints, under ``admin/workflows/webform/<id>/builder/``:

- ``""``: the builder's page.
- ``definition/``: GET the webform (``workflows.builder.state.builder_state``); POST it to save
  (``webform_build``). A refused save answers 400 ``{"name": "ValidationError", "fields":
  [{"property": "pages.0.fields.2.key", "message"}]}`` and changes nothing.
- ``draft/``: POST the webform as drafted: the preview shows it, nothing is saved.
- ``preview/``: the page of the draft ``?forge=<slug>&page=<n>`` as the public form draws it
  (GET), or checked as people's pages are (POST, workflows.pages.views.preview).
- ``publish/``: POST publishes the webform's workflow as saved (``workflow_publish``): 200
  ``{"version": <number>}``, or its refusal in the wire shape, nothing published.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from accounts.staff import staff_manages, staff_organizations
from core.admin_actions import CheckedActionIds
from core.admin_pages import object_for_change, own_pages
from core.errors import ValidationFailed
from core.json_views import json_view
from workflows.builder.catalogue import catalogue_json
from workflows.builder.state import builder_state, preview_definition, webform_build
from workflows.definitions.versions import workflow_publish
from workflows.models import Webform, WebformPage, Workflow
from workflows.pages import views

WebformView = Callable[[HttpRequest, Webform], HttpResponse]


def _draft_key(webform: Webform) -> str:
    return f"workflows.builder.state.draft.{webform.pk}"


def _url(name: str, webform: Webform) -> str:
    return reverse(f"admin:workflows_webform_{name}", args=[webform.pk])


@json_view(methods=("GET", "POST"), prefix="body")
def builder_definition(
    request: HttpRequest, webform: Webform, body: dict[str, Any]
) -> JsonResponse:
    if request.method == "POST":
        webform_build(webform=webform, data=body.get("webform"))
        request.session.pop(_draft_key(webform), None)
        webform.refresh_from_db()
    return JsonResponse(builder_state(webform))


@json_view(prefix="body")
def builder_draft(request: HttpRequest, webform: Webform, body: dict[str, Any]) -> HttpResponse:
    draft = body.get("webform")
    if not isinstance(draft, dict):
        raise ValidationFailed.single("webform", "Required: the webform as drafted.")
    # Kept in the session: the preview's own links and its "Check this page" reach it there.
    request.session[_draft_key(webform)] = draft
    return HttpResponse(status=204)


@json_view(prefix="body")
def builder_publish(request: HttpRequest, webform: Webform) -> JsonResponse:
    version = workflow_publish(workflow=webform.workflow)
    return JsonResponse({"version": version.number})


def builder_preview(request: HttpRequest, webform: Webform) -> HttpResponse:
    draft = request.session.get(_draft_key(webform))
    definition = preview_definition(webform, draft) if draft is not None else None
    return views.preview(request, webform.workflow, definition)


@admin.register(Webform)
class WebformAdmin(CheckedActionIds):
    list_display = ["name", "slug", "workflow", "position"]
    search_fields = ["name", "slug", "eid"]
    readonly_fields = ["eid", "workflow_link"]
    fields = ["workflow_link", "name", "slug", "eid"]
    change_form_template = "admin/workflows/webform/change_form.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Webform]:
        queryset = super().get_queryset(request).select_related("workflow__organization")
        return queryset.filter(workflow__organization__in=staff_organizations(user=request.user))

    def get_model_perms(self, request: HttpRequest) -> dict[str, bool]:
        return {}  # reached from its workflow's page, not listed on the index

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # added on the workflow's page

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        allowed = super().has_change_permission(request, obj)
        if not allowed or obj is None:
            return allowed
        return staff_manages(user=request.user, organization_ids={obj.workflow.organization_id})

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        allowed = super().has_delete_permission(request, obj)
        if not allowed or obj is None:
            return allowed
        return staff_manages(user=request.user, organization_ids={obj.workflow.organization_id})

    @admin.display(description="Workflow")
    def workflow_link(self, webform: Webform) -> str:
        url = reverse("admin:workflows_workflow_change", args=[webform.workflow_id])
        return format_html('<a href="{}">{}</a>', url, webform.workflow)

    def save_model(self, request: HttpRequest, obj: Webform, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if not obj.pages.exists():
            WebformPage.objects.create(webform=obj, title="Page 1")
        Workflow.objects.filter(pk=obj.workflow_id).update(updated_at=timezone.now())

    def response_change(self, request: HttpRequest, obj: Webform) -> HttpResponse:
        # Its name and address are edited from the builder: saved, back to the builder.
        response = super().response_change(request, obj)
        if "_continue" in request.POST or response.status_code != 302:
            return response
        return HttpResponseRedirect(reverse("admin:workflows_webform_builder", args=[obj.pk]))

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ):
        extra_context = {**(extra_context or {})}
        extra_context["builder_url"] = reverse("admin:workflows_webform_builder", args=[object_id])
        return super().change_view(request, object_id, form_url, extra_context)

    # --- the builder ------------------------------------------------------------------------
    def get_urls(self) -> list:
        endpoints = (
            ("definition", builder_definition),
            ("draft", builder_draft),
            ("preview", builder_preview),
            ("publish", builder_publish),
        )
        pages = [
            *(
                (f"<path:object_id>/builder/{suffix}/", self._endpoint(view), f"builder_{suffix}")
                for suffix, view in endpoints
            ),
            ("<path:object_id>/builder/", self._endpoint(self.builder_page), "builder"),
        ]
        # Before the admin's own: "<id>/builder/" would reach the change view as id "<id>/builder".
        return [*own_pages(self, "workflows_webform", pages), *super().get_urls()]

    def _webform_for_change(self, request: HttpRequest, object_id: str) -> Webform:
        webform: Webform = object_for_change(self, request, object_id, "No such webform.")
        return webform

    def _endpoint(self, view: WebformView) -> Callable[[HttpRequest, str], HttpResponse]:
        def endpoint(request: HttpRequest, object_id: str) -> HttpResponse:
            return view(request, self._webform_for_change(request, object_id))

        return endpoint

    def builder_page(self, request: HttpRequest, webform: Webform) -> HttpResponse:
        if request.method != "GET":
            return HttpResponse(status=405)
        # A draft of an earlier visit is not what the page starts with.
        request.session.pop(_draft_key(webform), None)
        config = {
            "urls": {
                "definition": _url("builder_definition", webform),
                "draft": _url("builder_draft", webform),
                "preview": _url("builder_preview", webform),
                "publish": _url("builder_publish", webform),
            },
            "slug": webform.slug,
            "catalogue": catalogue_json(),
        }
        context = {
            **self.admin_site.each_context(request),
            "opts": Webform._meta,
            "original": webform,
            "workflow": webform.workflow,
            "title": f"Build {webform.name}",
            "builder_config": config,
            # The builder needs the whole width: no app list beside it.
            "is_nav_sidebar_enabled": False,
        }
        return render(request, "admin/workflows/webform/builder.html", context)
