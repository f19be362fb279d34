"""The workflow admin: its webforms (in order; each built in the webform builder,
workflows/builder/admin.py), the documents a workflow fills with the mapping of their aliases
picked from lists, the signing step, a live preview, publishing, and JSON export (an action) and
import (a page).

Staff see the workflows of the organizations they belong to and change those of the
organizations they manage (owner or admin); superusers see and change all. Every choice a form
offers (organizations, templates, fields) is limited the same way.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.forms import HiddenInput
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import format_html

from accounts.staff import staff_managed_organizations, staff_manages, staff_organizations
from accounts.staff_admin import manages, may_manage
from core.admin_actions import CheckedActionIds
from core.admin_context import own_page_urls
from core.admin_pages import own_pages
from core.admin_publishing import PublishingAdmin
from core.errors import ServiceError
from core.responses import file_response
from templates_app.models import PdfTemplate
from workflows.builder import admin as builder_admin  # noqa: F401 - the webform admin
from workflows.definitions import versions
from workflows.definitions.mapping import document_mappings_set, mapping_choices, workflow_fields
from workflows.forms import ImportForm, MappingForm, SignerForm
from workflows.models import (
    Submission,
    Webform,
    WebformField,
    WebformPage,
    WebformSubmission,
    Workflow,
    WorkflowDocument,
    WorkflowSigner,
    WorkflowVersion,
)
from workflows.pages import views
from workflows.submissions.links import submission_links_rotate

ORDER_JS = "workflows/admin-order.js"
ORDER_CSS = "workflows/admin-order.css"


def _may_change(request: HttpRequest, organization_id: int | None) -> bool:
    if organization_id is None:
        return True
    return staff_manages(user=request.user, organization_ids={organization_id})


def _parent(request: HttpRequest) -> Any:
    """The object whose change page is being built (set by the parent admin's get_form)."""
    return getattr(request, "_workflows_parent", None)


class OrderedInline(admin.TabularInline):
    """Rows dragged into order (or moved with their Up and Down buttons) by admin-order.js,
    which numbers the hidden ``position`` inputs in the order shown."""

    extra = 0
    classes = ["wf-ordered"]

    class Media:
        js = [ORDER_JS]
        css = {"all": [ORDER_CSS]}

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "position":
            kwargs["widget"] = HiddenInput()
        return super().formfield_for_dbfield(db_field, request, **kwargs)


# --- workflows ----------------------------------------------------------------------------------


class WebformInline(OrderedInline):
    model = Webform
    fields = ["position", "name", "slug", "edit_link"]
    readonly_fields = ["edit_link"]
    prepopulated_fields = {"slug": ("name",)}
    verbose_name_plural = "Webforms, in the order people fill them"

    @admin.display(description="Pages and fields")
    def edit_link(self, webform: Webform) -> str:
        if not webform.pk:
            return "Save first, then edit its pages and fields."
        url = reverse("admin:workflows_webform_builder", args=[webform.pk])
        count = webform.fields.count()
        return format_html('<a href="{}">Build its pages and fields ({} fields)</a>', url, count)


class DocumentInline(OrderedInline):
    model = WorkflowDocument
    fields = ["position", "template", "title", "filename", "mapping_link"]
    readonly_fields = ["mapping_link"]
    verbose_name_plural = "Documents filled when every webform is complete"

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "template":
            workflow = _parent(request)
            organizations = (
                [workflow.organization_id]
                if workflow is not None
                else staff_organizations(user=request.user)
            )
            kwargs["queryset"] = PdfTemplate.objects.filter(
                organization__in=organizations, is_template=True
            ).order_by("title")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.display(description="Mapping")
    def mapping_link(self, document: WorkflowDocument) -> str:
        if not document.pk:
            return "Save first, then map its fields."
        url = reverse("admin:workflows_workflow_mapping", args=[document.workflow_id, document.pk])
        return format_html(
            '<a href="{}">Map fields ({} mapped)</a>', url, document.mappings.count()
        )


class SignerInline(admin.StackedInline):
    model = WorkflowSigner
    form = SignerForm
    extra = 0
    verbose_name_plural = "Signing step (optional): signers whose name and email come from fields"

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name in ("name_field", "email_field"):
            workflow = _parent(request)
            types = ("fullName", "shortText") if db_field.name == "name_field" else ("email",)
            kwargs["queryset"] = WebformField.objects.filter(
                webform__workflow=workflow, type__in=types
            ).select_related("webform")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class VersionInline(admin.TabularInline):
    model = WorkflowVersion
    extra = 0
    can_delete = False
    fields = ["number", "published_at"]
    readonly_fields = fields
    verbose_name_plural = "Published versions"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Workflow)
class WorkflowAdmin(PublishingAdmin, CheckedActionIds):
    list_display = [
        "name",
        "slug",
        "organization",
        "published",
        "unpublished_changes",
        "form_link",
    ]
    list_filter = [("organization", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["name", "slug", "eid"]
    readonly_fields = ["eid", "created_at", "updated_at", "public_form"]
    inlines = [WebformInline, DocumentInline, SignerInline, VersionInline]
    actions = ["publish_workflows", "export_json"]
    change_form_template = "admin/workflows/workflow/change_form.html"
    change_list_template = "admin/workflows/workflow/change_list.html"
    # The address follows the name while the slug is new (Django's prepopulate, add form only).
    prepopulated_fields = {"slug": ("name",)}

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        """The organization chosen already when the user manages only one."""
        initial = super().get_changeform_initial_data(request)
        managed = list(staff_managed_organizations(user=request.user)[:2])
        if len(managed) == 1:
            initial.setdefault("organization", managed[0].pk)
        return initial

    def response_add(
        self, request: HttpRequest, obj: Workflow, post_url_continue: str | None = None
    ) -> HttpResponse:
        """Saved: straight to the builder of its first webform (save_related made it), so
        "Add workflow" is two pages from the builder; "Save and continue" and "Save and add
        another" keep the admin's way."""
        response = super().response_add(request, obj, post_url_continue)
        webform = obj.webforms.first()
        if "_continue" in request.POST or "_addanother" in request.POST or webform is None:
            return response
        if response.status_code != 302:  # a popup's answer
            return response
        return HttpResponseRedirect(reverse("admin:workflows_webform_builder", args=[webform.pk]))

    def get_queryset(self, request: HttpRequest) -> QuerySet[Workflow]:
        queryset = super().get_queryset(request).select_related("organization")
        return queryset.filter(organization__in=staff_organizations(user=request.user))

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            return ["organization", "name", "slug"]
        return ["name", "slug", "organization", "eid", "public_form", "created_at", "updated_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [*self.readonly_fields, "organization"] if obj is not None else []

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any):
        request._workflows_parent = obj  # type: ignore[attr-defined]
        return super().get_form(request, obj, change=change, **kwargs)

    def get_inlines(self, request: HttpRequest, obj: Any) -> list:
        return self.inlines if obj is not None else []

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "organization":
            kwargs["queryset"] = staff_managed_organizations(user=request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        allowed = super().has_change_permission(request, obj)
        return allowed and _may_change(request, obj.organization_id if obj else None)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        allowed = super().has_delete_permission(request, obj)
        return allowed and _may_change(request, obj.organization_id if obj else None)

    # The Published and Unpublished changes columns, and publishing: core.admin_publishing.
    def version_summary(self, workflow: Workflow) -> versions.VersionSummary:
        return versions.version_summary(workflow)

    def publish_version(self, workflow: Workflow) -> WorkflowVersion:
        return versions.workflow_publish(workflow=workflow)

    @admin.display(description="Public form")
    def form_link(self, workflow: Workflow) -> str:
        return format_html('<a href="{0}" target="_blank">{0}</a>', versions.start_url(workflow))

    @admin.display(description="Public form")
    def public_form(self, workflow: Workflow) -> str:
        url = versions.start_url(workflow)
        demo = reverse("workflows-embed-demo", args=[workflow.organization.slug, workflow.slug])
        return format_html(
            '<a href="{0}" target="_blank">{0}</a> (published versions only) · '
            '<a href="{1}" target="_blank">embedding demo</a>',
            url,
            demo,
        )

    # --- actions --------------------------------------------------------------------------
    @admin.action(description="Publish the working version")
    def publish_workflows(self, request: HttpRequest, queryset: QuerySet[Workflow]) -> None:
        if not manages(request, {workflow.organization for workflow in queryset}):
            return
        for workflow in queryset:
            self._publish(request, workflow)

    @admin.action(description="Export as JSON")
    def export_json(self, request: HttpRequest, queryset: QuerySet[Workflow]) -> HttpResponse:
        workflows = list(queryset)
        if len(workflows) == 1:
            data: Any = versions.workflow_export(workflow=workflows[0])
            name = workflows[0].slug
        else:
            data = {
                "format": "workflow-list/1",
                "workflows": [versions.workflow_export(workflow=w) for w in workflows],
            }
            name = "workflows"
        return file_response(
            json.dumps(data, indent=2, ensure_ascii=False),
            filename=f"{name}.json",
            content_type="application/json",
        )

    # --- pages ----------------------------------------------------------------------------
    def get_urls(self) -> list:
        pages = [
            ("import/", self.import_view, "import"),
            ("<path:object_id>/publish/", self.publish_view, "publish"),
            ("<path:object_id>/preview/", self.preview_view, "preview"),
            ("<path:object_id>/export/", self.export_view, "export"),
            ("<path:object_id>/documents/<int:document_id>/mapping/", self.mapping_view, "mapping"),
        ]
        return own_pages(self, "workflows_workflow", pages) + super().get_urls()

    def _workflow(self, request: HttpRequest, object_id: str, *, change: bool) -> Workflow:
        workflow = self.get_object(request, object_id)
        if workflow is None:
            raise Http404("No such workflow.")
        if change and not self.has_change_permission(request, workflow):
            raise PermissionDenied
        return workflow

    def row_for_change(self, request: HttpRequest, object_id: str) -> Workflow:
        """The publish page's (core.admin_publishing)."""
        return self._workflow(request, object_id, change=True)

    def preview_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        workflow = self._workflow(request, object_id, change=False)
        return views.preview(request, workflow)

    def export_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        workflow = self._workflow(request, object_id, change=False)
        return self.export_json(request, Workflow.objects.filter(pk=workflow.pk))

    def mapping_view(self, request: HttpRequest, object_id: str, document_id: int) -> HttpResponse:
        workflow = self._workflow(request, object_id, change=True)
        document = WorkflowDocument.objects.filter(workflow=workflow, pk=document_id).first()
        if document is None:
            raise Http404("No such document.")
        choices = mapping_choices(document, workflow_fields(workflow))
        form = MappingForm(request.POST or None, document=document, choices=choices)
        if request.method == "POST" and form.is_valid():
            try:
                count = document_mappings_set(document=document, chosen=form.chosen())
            except ServiceError as error:
                messages.error(request, f"Not saved: {error.message}")
            else:
                messages.success(request, f"Saved: {count} fields of {document} are filled.")
                return HttpResponseRedirect(
                    reverse("admin:workflows_workflow_change", args=[workflow.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": workflow,
            "title": f"Map the fields of {document}",
            "document": document,
            "form": form,
        }
        return render(request, "admin/workflows/workflow/mapping.html", context)

    def import_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        organizations = staff_managed_organizations(user=request.user)
        form = ImportForm(request.POST or None, request.FILES or None, organizations=organizations)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data["file"]
            items = (
                data.get("workflows") if isinstance(data, dict) and "workflows" in data else [data]
            )
            try:
                for item in items:
                    workflow, created = versions.workflow_import(
                        organization=form.cleaned_data["organization"],
                        data=item,
                        publish=form.cleaned_data["publish"],
                    )
                    verb = "Created" if created else "Replaced the working version of"
                    messages.success(request, f"{verb} {workflow}.")
            except ServiceError as error:
                messages.error(request, f"Nothing was imported: {error.message}")
            else:
                return HttpResponseRedirect(reverse("admin:workflows_workflow_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Import workflows from JSON",
            "form": form,
        }
        return render(request, "admin/workflows/workflow/import.html", context)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        workflow = form.instance
        # A new workflow gets a first webform, named and addressed as the workflow.
        if not change and not workflow.webforms.exists():
            Webform.objects.create(workflow=workflow, name=workflow.name, slug=workflow.slug)
        # A new webform gets a first page, so its fields have somewhere to go.
        for webform in form.instance.webforms.filter(pages__isnull=True):
            WebformPage.objects.create(webform=webform, title="Page 1")

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ):
        extra_context = {
            **(extra_context or {}),
            **own_page_urls("workflows_workflow", object_id, ("publish", "preview", "export")),
        }
        return super().change_view(request, object_id, form_url, extra_context)


# --- submissions (read only) --------------------------------------------------------------------


class WebformSubmissionInline(admin.TabularInline):
    model = WebformSubmission
    extra = 0
    can_delete = False
    fields = ["eid", "webform_slug", "current_step", "completed_at", "payload"]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Submission)
class SubmissionAdmin(CheckedActionIds):
    list_display = ["display_title", "workflow", "status", "is_test", "created_at", "completed_at"]
    list_filter = ["status", "is_test"]
    search_fields = ["eid", "display_title"]
    fields = [
        "eid",
        "workflow",
        "status",
        "is_test",
        "display_title",
        "version_number",
        "webhook_url",
        "packet",
        "created_at",
        "completed_at",
    ]
    readonly_fields = fields
    inlines = [WebformSubmissionInline]
    actions = ["end_continue_links"]

    @admin.action(description="End the continue links handed out so far", permissions=["view"])
    def end_continue_links(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        submissions = list(queryset)
        if not manages(request, {submission.workflow.organization for submission in submissions}):
            return
        for submission in submissions:
            submission_links_rotate(submission=submission)
        self.message_user(request, f"Ended the continue links of {len(submissions)} submission(s).")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Submission]:
        queryset = super().get_queryset(request).select_related("workflow__organization")
        return queryset.filter(workflow__organization__in=staff_organizations(user=request.user))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        allowed = super().has_delete_permission(request, obj)
        return allowed and (obj is None or may_manage(request, obj.workflow.organization))
