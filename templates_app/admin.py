"""The template admin: upload (import), fields and style per page, publish, version history.

Staff see only the templates of organizations they belong to; superusers see all. Apps above this
one add pages to a template (fill: the test fill and the editor's preview) through
``register_template_view``.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.forms import Form
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from accounts.models import Organization
from accounts.staff import staff_organizations
from core.admin_actions import CheckedActionIds
from core.admin_context import own_page_urls
from core.admin_pages import object_for_change, own_pages
from core.admin_publishing import PublishingAdmin
from templates_app import editor, fields_page, rename, replace_pdf, services, upload_stash
from templates_app.engine.describe import example_data
from templates_app.forms import TemplateUploadForm
from templates_app.models import PdfTemplate, TemplateVersion

# The API key is never shown in the admin (only its hash is stored): the call names a placeholder.
API_KEY_PLACEHOLDER = "YOUR_API_KEY"

TemplateView = Callable[[HttpRequest, PdfTemplate], HttpResponse]

# The methods of a page with a form (any other is answered 405).
GET_POST = ("GET", "POST")


@dataclass(frozen=True)
class _ContributedView:
    route: str
    view: TemplateView
    methods: tuple[str, ...] | None


_contributed_views: dict[str, _ContributedView] = {}


def register_template_view(
    *, route: str, name: str, view: TemplateView, methods: tuple[str, ...] | None = None
) -> None:
    """Serve ``view`` at ``<template id>/<route>/`` in the template admin, named
    ``admin:templates_app_pdftemplate_<name>``.

    For the apps above this one, which it cannot import (fill's test fill and editor preview).
    The view gets the admin's staff login, CSRF protection and never-cache, then the template
    after the same tenancy and change-permission checks as the admin's own pages (404, 403).
    With ``methods``, any other method is answered 405 before the template is looked up.
    Register at import of the app's ``admin`` module: the URLs are built once, after that.
    """
    _contributed_views[name] = _ContributedView(route=route, view=view, methods=methods)


@dataclass(frozen=True)
class ExampleCall:
    """The working version's example data and a curl call that fills the template with it."""

    data_json: str
    curl: str


def example_call(template: PdfTemplate) -> ExampleCall:
    summary = services.version_summary(template)
    data = example_data(services.version_spec(services.working_version(template)))
    url = settings.PUBLIC_BASE_URL + reverse("fill-pdf", args=[template.eid])
    if summary.published_number is None or summary.has_unpublished_changes:
        # The API fills the latest published version by default; this data is the working one's.
        url += "?versionNumber=-1"
    body = json.dumps({"data": data}, ensure_ascii=False)
    curl = (
        f"curl -s -u {shlex.quote(API_KEY_PLACEHOLDER + ':')}"
        " -H 'Content-Type: application/json' -o filled.pdf \\\n"
        f"  -d {shlex.quote(body)} \\\n"
        f"  {shlex.quote(url)}"
    )
    return ExampleCall(data_json=json.dumps(data, indent=2, ensure_ascii=False), curl=curl)


def organizations_of(request: HttpRequest) -> QuerySet[Organization]:
    return staff_organizations(user=request.user)


class VersionInline(admin.TabularInline):
    """The template's versions, read-only (admin/readonly_inline.html: no empty header, a box
    the keyboard scrolls), each column narrow enough that "Updated at" shows on a phone."""

    model = TemplateVersion
    extra = 0
    can_delete = False
    template = "admin/readonly_inline.html"
    fields = ["number", "published_at", "field_count", "pdf_hash", "updated_at"]
    readonly_fields = fields
    verbose_name_plural = "Versions (the blank number is the working version)"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="Fields")
    def field_count(self, version: TemplateVersion) -> int:
        return len(version.spec.get("fields", []))

    @admin.display(description="PDF SHA-256")
    def pdf_hash(self, version: TemplateVersion) -> str:
        """The first 16 hex digits, the whole in the tooltip: the table fits a phone."""
        value = version.pdf_sha256
        return format_html('<span title="{}">{}…</span>', value, value[:16]) if value else "-"


class TemplateChangeList(ChangeList):
    def get_queryset(self, request: HttpRequest, exclude_parameters: Any = None) -> QuerySet:
        # The Published and Unpublished changes columns read every version of each row
        # (services.version_summary): one prefetch instead of two queries per row. Only here:
        # the other pages change versions after loading the template, and would see a stale list.
        queryset = super().get_queryset(request, exclude_parameters)
        return queryset.prefetch_related("versions")


@admin.register(PdfTemplate)
class PdfTemplateAdmin(PublishingAdmin, CheckedActionIds):
    list_display = [
        "title",
        "eid",
        "organization",
        "published",
        "unpublished_changes",
        "updated_at",
    ]
    # Only the organizations of the templates the user sees are offered.
    list_filter = [("organization", admin.RelatedOnlyFieldListFilter), "is_template"]
    search_fields = ["title", "eid"]
    readonly_fields = ["eid", "organization", "created_at", "updated_at"]
    fields = ["title", "is_template", "eid", "organization", "created_at", "updated_at"]
    inlines = [VersionInline]
    actions = ["publish_working_versions", "duplicate_templates"]

    # --- tenancy ---------------------------------------------------------------------------
    def get_queryset(self, request: HttpRequest) -> QuerySet[PdfTemplate]:
        queryset = super().get_queryset(request).select_related("organization")
        if request.user.is_superuser:
            return queryset
        return queryset.filter(organization__members=request.user)

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return TemplateChangeList

    # --- add: upload a PDF, the import runs -------------------------------------------------
    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any):
        if obj is not None:
            return super().get_form(request, obj, change=change, **kwargs)
        organizations = organizations_of(request)

        class UploadForm(TemplateUploadForm):
            def __init__(self, *args: Any, **inner: Any) -> None:
                super().__init__(*args, organizations=organizations, user=request.user, **inner)

        return UploadForm

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            return ["organization", "title", "is_template", "pdf", "kept_pdf", "publish"]
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return self.readonly_fields if obj is not None else []

    def get_inlines(self, request: HttpRequest, obj: Any) -> list:
        return self.inlines if obj is not None else []

    def save_model(self, request: HttpRequest, obj: PdfTemplate, form: Form, change: bool) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        data = form.cleaned_data
        created = services.template_create_from_pdf(
            organization=data["organization"],
            title=data["title"] or form.pdf_title,
            pdf=form.upload or data["pdf"],  # an Office document as the PDF it became
            publish=data["publish"],
            is_template=data["is_template"],
        )
        if form.kept is not None:
            upload_stash.discard(form.kept)
        # The admin continues with ``obj`` (messages, redirect): make it the created row.
        obj.pk, obj.eid, obj.title = created.pk, created.eid, created.title

    def response_add(
        self, request: HttpRequest, obj: PdfTemplate, post_url_continue: str | None = None
    ) -> HttpResponse:
        """A PDF without form fields (a flat one) has nothing to edit on the template's page:
        saving it opens the visual editor on it, with Detect fields open (editor.js, ``added``).
        "Save and add another" still adds another."""
        flat = (
            "_addanother" not in request.POST
            and "_popup" not in request.POST
            and self.has_change_permission(request, obj)
            and not services.working_version(obj).spec["fields"]
        )
        if not flat:
            return super().response_add(request, obj, post_url_continue)
        url = reverse("admin:templates_app_pdftemplate_editor", args=[obj.pk])
        return HttpResponseRedirect(f"{url}?added")

    # --- publish (and the list's columns of it: core.admin_publishing) ----------------------
    def version_summary(self, template: PdfTemplate) -> services.VersionSummary:
        return services.version_summary(template)

    def publish_version(self, template: PdfTemplate) -> TemplateVersion:
        return services.template_publish(template=template)

    @admin.action(description="Publish the working version")
    def publish_working_versions(
        self, request: HttpRequest, queryset: QuerySet[PdfTemplate]
    ) -> None:
        for template in queryset:
            self._publish(request, template)

    # --- duplicate --------------------------------------------------------------------------
    @admin.action(description="Duplicate (copy the working version)", permissions=["add"])
    def duplicate_templates(self, request: HttpRequest, queryset: QuerySet[PdfTemplate]) -> None:
        for template in queryset:
            self._duplicate(request, template)

    def _duplicate(self, request: HttpRequest, template: PdfTemplate) -> PdfTemplate:
        copy = services.template_duplicate(template=template)
        messages.success(
            request,
            f"Copied “{template}” as “{copy.title}”: its working version, unpublished.",
        )
        return copy

    def duplicate_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponse(status=405)
        template = self._template_for_change(request, object_id)
        if not self.has_add_permission(request):
            raise PermissionDenied
        copy = self._duplicate(request, template)
        return HttpResponseRedirect(
            reverse("admin:templates_app_pdftemplate_change", args=[copy.pk])
        )

    # --- extra pages ------------------------------------------------------------------------
    def get_urls(self) -> list:
        editor_endpoints = (
            ("pdf", editor.editor_pdf),
            ("spec", editor.editor_spec),
            ("publish", editor.editor_publish),
            ("detect", editor.editor_detect),
        )
        pages = [
            # The contributed pages and the visual editor (templates_app/editor.py) first:
            # "<id>/editor/publish/" would otherwise reach the publish view with the id
            # "<id>/editor".
            *(
                (
                    f"<path:object_id>/{page.route}/",
                    self._template_endpoint(page.view, page.methods),
                    name,
                )
                for name, page in _contributed_views.items()
            ),
            ("<path:object_id>/editor/", self._template_page(editor.editor_page), "editor"),
            *(
                (
                    f"<path:object_id>/editor/{suffix}/",
                    self._template_endpoint(view),
                    f"editor_{suffix}",
                )
                for suffix, view in editor_endpoints
            ),
            # The working version's document style and the fields of one page.
            ("<path:object_id>/fields/", self._template_page(fields_page.fields_page), "fields"),
            ("<path:object_id>/publish/", self.publish_view, "publish"),
            # Rename many fields at once.
            (
                "<path:object_id>/aliases/",
                self._template_page(rename.rename_page, GET_POST),
                "aliases",
            ),
            ("<path:object_id>/duplicate/", self.duplicate_view, "duplicate"),
            # Give the template a new PDF.
            (
                "<path:object_id>/replace-pdf/",
                self._template_page(replace_pdf.replace_pdf_page, GET_POST),
                "replace_pdf",
            ),
        ]
        return own_pages(self, "templates_app_pdftemplate", pages) + super().get_urls()

    def _template_for_change(self, request: HttpRequest, object_id: str) -> PdfTemplate:
        template: PdfTemplate = object_for_change(self, request, object_id, "No such template.")
        return template

    row_for_change = _template_for_change  # the publish page's (core.admin_publishing)

    def _template_endpoint(
        self, view: TemplateView, methods: tuple[str, ...] | None = None
    ) -> Callable[[HttpRequest, str], HttpResponse]:
        """A view of one template behind the same tenancy and permission check as the others."""

        def endpoint(request: HttpRequest, object_id: str) -> HttpResponse:
            if methods is not None and request.method not in methods:
                return HttpResponse(status=405)
            return view(request, self._template_for_change(request, object_id))

        return endpoint

    def _template_page(
        self, page: Callable[..., HttpResponse], methods: tuple[str, ...] | None = None
    ) -> Callable[[HttpRequest, str], HttpResponse]:
        """A page of one template in the admin's frame (``page`` gets the admin's context), behind
        the same checks as the endpoints."""

        def view(request: HttpRequest, template: PdfTemplate) -> HttpResponse:
            return page(request, template, admin_context=self.admin_site.each_context(request))

        return self._template_endpoint(view, methods)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ):
        pages = ("fields", "publish", "test_fill", "editor", "aliases", "duplicate", "replace_pdf")
        extra_context = {
            **(extra_context or {}),
            **own_page_urls("templates_app_pdftemplate", object_id, pages),
        }
        template = self.get_object(request, object_id)
        if template is not None:
            extra_context["example_call"] = example_call(template)
            extra_context["api_key_placeholder"] = API_KEY_PLACEHOLDER
        return super().change_view(request, object_id, form_url, extra_context)
