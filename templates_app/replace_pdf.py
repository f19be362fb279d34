"""The admin's "Replace PDF" page: a new PDF for a template's working version.

A form revised for a new year usually moves little: the template's fields are kept where they
still fit the new pages, and the page lists the ones that do not (they are dropped, with their
alias and page, so nobody finds out from a blank box in a filled form). Staff may instead take
the new PDF's own form fields. Published versions keep their PDF.

Reached only through ``PdfTemplateAdmin`` (``admin.py``), which checks staff login, CSRF,
tenancy and the change permission and passes the template.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from core.errors import ValidationFailed
from templates_app import services
from templates_app.models import PdfTemplate

# Dropped fields named one by one in the message; more are counted.
LISTED_MAX = 25

KEEP = "keep"
TAKE_NEW = "new"


class ReplacePdfForm(forms.Form):
    pdf = forms.FileField(label="New PDF")
    fields_from = forms.ChoiceField(
        label="Fields",
        widget=forms.RadioSelect,
        initial=KEEP,
        choices=[
            (KEEP, "Keep this template's fields where they still fit the new pages"),
            (TAKE_NEW, "Use the new PDF's own form fields instead (this template's are removed)"),
        ],
    )

    def clean_pdf(self) -> bytes:
        upload = self.cleaned_data["pdf"]
        if upload.size > services.MAX_PDF_BYTES:
            raise forms.ValidationError(f"The PDF is larger than {services.MAX_PDF_BYTES} bytes.")
        return upload.read()


def _describe(field: dict[str, Any]) -> str:
    return f"{field.get('alias') or field['id']} (page {field.get('page', 0) + 1})"


def dropped_message(dropped: list[dict[str, Any]]) -> str:
    names = ", ".join(_describe(f) for f in dropped[:LISTED_MAX])
    more = len(dropped) - LISTED_MAX
    tail = f" and {more} more" if more > 0 else ""
    return (
        f"{len(dropped)} field(s) did not fit the new PDF's pages and were removed: "
        f"{names}{tail}. Add them again in the visual editor if they are still needed."
    )


def replace_pdf_page(
    request: HttpRequest, template: PdfTemplate, *, admin_context: dict[str, Any]
) -> HttpResponse:
    if request.method == "POST":
        form = ReplacePdfForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                replaced = services.template_replace_pdf(
                    template=template,
                    pdf=form.cleaned_data["pdf"],
                    keep_fields=form.cleaned_data["fields_from"] == KEEP,
                )
            except ValidationFailed as failure:
                for problem in failure.fields:
                    form.add_error("pdf", problem.message)
            else:
                field_count = len(replaced.version.spec["fields"])
                page_count = len(replaced.version.spec["pages"])
                messages.success(
                    request,
                    f"The working version of “{template}” now has the new PDF"
                    f" ({page_count} page(s), {field_count} field(s)). Publish it to make it the"
                    " default for fills.",
                )
                if replaced.dropped:
                    messages.warning(request, dropped_message(replaced.dropped))
                return HttpResponseRedirect(
                    reverse("admin:templates_app_pdftemplate_change", args=[template.pk])
                )
    else:
        form = ReplacePdfForm()
    spec = services.working_version(template).spec
    context = {
        **admin_context,
        "opts": PdfTemplate._meta,
        "original": template,
        "title": f"Replace the PDF of {template.title}",
        "form": form,
        "page_count": len(spec["pages"]),
        "field_count": len(spec["fields"]),
    }
    return render(request, "admin/templates_app/pdftemplate/replace_pdf.html", context)
