"""Admin of bulk sends (esign.bulk.sends): upload a CSV or XLSX file for a template, see the first
rows and every row's problems, send, watch the progress, download each row's outcome as CSV.

"Add bulk send" is the upload: it stores a draft (nothing is sent) and opens its page, the
preview. Its "Send" button starts the background task; while it sends, the page's progress bar
follows ``progress.json``; once done, the results download as CSV. Scoped like every admin of an
organization's rows (``accounts.staff_admin``): staff see their organizations' bulk sends; only
an owner or admin of the organization uploads, sends or cancels one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts.staff import staff_managed_organizations
from accounts.staff_admin import OrganizationOwnedAdmin, may_manage
from core.admin_context import RowContextAdmin
from core.admin_pages import own_pages
from core.errors import ServiceError, ValidationFailed
from core.responses import file_response
from esign.bulk.files import rows_from_file, sample_csv, template_columns, template_shape
from esign.bulk.results import results_csv, row_problems
from esign.bulk.sends import batch_cancel, batch_create, batch_start
from esign.bulk_models import BulkBatch, BulkRow
from templates_app.models import PdfTemplate

PREVIEW_ROWS = 10
PROBLEM_ROWS = 200  # the problems listed on the page; the results CSV has them all


class UploadForm(forms.Form):
    template = forms.ModelChoiceField(
        queryset=PdfTemplate.objects.none(),
        label=gettext_lazy("Template"),
        help_text=gettext_lazy(
            "Its fields are filled from the columns of the same name (id or alias); its "
            "signature fields are the signer's."
        ),
    )
    name = forms.CharField(
        max_length=255,
        required=False,
        label=gettext_lazy("Packet name"),
        help_text=gettext_lazy(
            "Each packet's name; {{column}} puts in a row's value. Default: the template's title."
        ),
    )
    email_subject = forms.CharField(
        max_length=255, required=False, label=gettext_lazy("Email subject")
    )
    file = forms.FileField(
        label=gettext_lazy("Rows (CSV or XLSX)"),
        help_text=gettext_lazy(
            "The first line names the columns: name and email (the signer's), then the "
            "template's fields."
        ),
    )

    def __init__(self, *args: Any, organizations: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["template"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = PdfTemplate.objects.filter(organization__in=organizations).order_by(
            "title"
        )


class BatchProblem(Exception):
    """The upload cannot make a draft; each (field, message) goes on the form."""

    def __init__(self, problems: list[tuple[str | None, str]]) -> None:
        self.problems = problems


@admin.register(BulkBatch)
class BulkBatchAdmin(RowContextAdmin, OrganizationOwnedAdmin):
    list_display = ["name", "organization", "status", "progress", "created_at", "created_by"]
    list_filter = ["status"]
    search_fields = ["name", "eid"]
    ordering = ["-created_at"]

    @admin.display(description=gettext_lazy("rows done"))
    def progress(self, obj: BulkBatch) -> str:
        return f"{obj.rows_done} / {obj.rows_total}"

    def get_urls(self) -> list[Any]:
        pages = [
            ("<int:batch_id>/send/", require_POST(self.send), "send"),
            ("<int:batch_id>/cancel/", require_POST(self.cancel), "cancel"),
            ("<int:batch_id>/progress.json", self.progress_json, "progress"),
            ("<int:batch_id>/results.csv", self.results, "results"),
            ("sample/<int:template_id>.csv", self.sample, "sample"),
        ]
        return [
            *own_pages(self, "esign_bulk", pages),
            *super().get_urls(),
        ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return super().has_add_permission(request) and self.has_manage_permission(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a bulk send is shown, never edited: its tools act on it

    change_form_template = "admin/esign/bulkbatch/change_form.html"
    fields = ["name", "organization", "status", "created_by", "created_at", "finished_at"]

    def _batch(self, request: HttpRequest, batch_id: int, *, act: bool = False) -> BulkBatch:
        batch: BulkBatch = self.owned_row(request, batch_id, act=act)
        return batch

    # --- the upload -----------------------------------------------------------------------------

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        organizations = staff_managed_organizations(user=request.user)
        form = UploadForm(request.POST or None, request.FILES or None, organizations=organizations)
        if request.method == "POST" and form.is_valid():
            try:
                batch = self._draft(request, form)
            except BatchProblem as problem:
                for field, message in problem.problems:
                    form.add_error(field, message)
            else:
                return HttpResponseRedirect(
                    reverse("admin:esign_bulkbatch_change", args=[batch.pk])
                )
        fieldsets = [(None, {"fields": list(form.fields)})]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Bulk send: upload rows"),
            "form": form,
            # The admin's own form wrapper: its fieldset templates draw the form as every admin
            # form is drawn (labels, help, errors).
            "adminform": helpers.AdminForm(form, fieldsets, {}),
            "inline_admin_formsets": [],
            # Each template's columns and its sample file (bulk_upload.js shows the chosen one's).
            "templates": [
                {"template": template, "columns": template_columns(template)}
                for template in form.fields["template"].queryset  # type: ignore[attr-defined]
            ],
        }
        return TemplateResponse(request, "admin/esign/bulkbatch/upload.html", context)

    def _draft(self, request: HttpRequest, form: UploadForm) -> BulkBatch:
        template: PdfTemplate = form.cleaned_data["template"]
        upload = form.cleaned_data["file"]
        try:
            rows = rows_from_file(upload.name or "", upload.read())
            columns = list(rows[0])
            shape, unused = template_shape(
                template=template,
                columns=columns,
                name=form.cleaned_data["name"],
                email_subject=form.cleaned_data["email_subject"],
            )
            batch = batch_create(
                organization=template.organization,
                watermark=False,
                name=f"{template.title}: {upload.name}"[:255],
                shape=shape,
                raw_rows=rows,
                created_by=f"admin {request.user.get_username()}"[:200],
                draft=True,
            )
        except ValidationFailed as invalid:
            raise BatchProblem(
                [
                    (f.property if f.property in ("file", "template", "name") else None, f.message)
                    for f in invalid.fields
                ]
            ) from None
        except ServiceError as error:
            raise BatchProblem([("file", error.message)]) from None
        if unused:
            self.message_user(
                request,
                _(
                    "These columns fill nothing (no field of the template has that id or "
                    "alias): %(columns)s"
                )
                % {"columns": ", ".join(unused)},
                messages.WARNING,
            )
        return batch

    # --- a batch's page: preview, progress, results -----------------------------------------

    def row_context(self, request: HttpRequest, batch: BulkBatch) -> dict[str, Any]:
        """The batch's page (core.admin_context): Django's read-only change form, with the
        preview (a draft), the progress (sending) or each row's outcome below its fields, and its
        tools on top."""
        rows = batch.rows.order_by("index")
        with_problems = rows.exclude(errors=[])
        problem_count = with_problems.count()
        draft = batch.status == BulkBatch.Status.DRAFT
        failed = [] if draft else rows.filter(status=BulkRow.Status.FAILED)[:PROBLEM_ROWS]

        def told(listed: Any) -> list[tuple[BulkRow, list[dict[str, Any]]]]:
            """Each row with its problems by column ("row 3, column email"), not by the
            packet's argument (signers.0.email)."""
            return [(row, row_problems(batch.shape, row.errors)) for row in listed]

        return {
            "batch": batch,
            "manages": may_manage(request, batch.organization),
            "columns": batch.columns,
            "preview": [
                (row, [row.values.get(column, "") for column in batch.columns], problems)
                for row, problems in told(rows[:PREVIEW_ROWS])
            ],
            "problem_count": problem_count,
            "problems": told(with_problems[:PROBLEM_ROWS]),
            "shown_problems": PROBLEM_ROWS,
            "percent": round(100 * batch.rows_done / batch.rows_total) if batch.rows_total else 0,
            "valid_count": batch.rows_total - problem_count,
            "failed": told(failed),
        }

    def send(self, request: HttpRequest, batch_id: int) -> HttpResponse:
        # Refused: sent already (a second click).
        refused = _("This bulk send cannot be sent again. Its status: %(status)s.")
        return self._step(request, batch_id, batch_start, refused)

    def cancel(self, request: HttpRequest, batch_id: int) -> HttpResponse:
        # Refused: finished meanwhile.
        refused = _("This bulk send is no longer sending. Its status: %(status)s.")
        return self._step(request, batch_id, batch_cancel, refused)

    def _step(
        self,
        request: HttpRequest,
        batch_id: int,
        step: Callable[..., Any],
        refused: str,
    ) -> HttpResponse:
        """``step(batch=)`` on a batch the user manages, then back to its page; the service's
        refusal (the API's Conflict) said in words, ``refused`` with the batch's status now."""
        batch = self._batch(request, batch_id, act=True)
        try:
            step(batch=batch)
        except ServiceError:
            batch.refresh_from_db()
            self.message_user(
                request, refused % {"status": batch.get_status_display()}, messages.WARNING
            )
        return HttpResponseRedirect(reverse("admin:esign_bulkbatch_change", args=[batch.pk]))

    def progress_json(self, request: HttpRequest, batch_id: int) -> HttpResponse:
        batch = self._batch(request, batch_id)
        return JsonResponse(
            {
                "status": batch.status,
                "total": batch.rows_total,
                "created": batch.rows_created,
                "failed": batch.rows_failed,
                "done": batch.rows_done,
            }
        )

    def sample(self, request: HttpRequest, template_id: int) -> HttpResponse:
        """A CSV file to start from for a template this user may bulk send."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        template = get_object_or_404(
            PdfTemplate,
            pk=template_id,
            organization__in=staff_managed_organizations(user=request.user),
        )
        return file_response(
            sample_csv(template),
            filename=f"bulk-send-{template.eid}-sample.csv",
            content_type="text/csv",
        )

    def results(self, request: HttpRequest, batch_id: int) -> HttpResponse:
        batch = self._batch(request, batch_id)
        return file_response(
            results_csv(batch), filename=f"bulk-send-{batch.eid}.csv", content_type="text/csv"
        )
