"""The admin's upload form: a PDF, or an Office document converted to one, imported as a new
template (field rows: field_forms.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django import forms
from django.db.models import QuerySet
from django.utils.html import format_html

from accounts.models import Organization
from core.errors import ServiceError, ValidationFailed
from core.office import PdfUpload
from templates_app.engine.errors import ImportRefused
from templates_app.models import PdfTemplate
from templates_app.services import MAX_PDF_BYTES, template_import, template_upload
from templates_app.upload_stash import StashedPdf, stash_pdf, stashed_pdf


class TemplateUploadForm(forms.ModelForm):
    """Upload a PDF, or a Word, OpenDocument or RTF document (converted to PDF, and kept as the
    template's source); the PDF's form fields become the new template's fields.

    The organization is preselected when the person has only one. A PDF that passed its checks
    is kept (templates_app.upload_stash) when another field is wrong, so it need not be chosen
    again: the file input is then optional and a hidden field names the kept file.
    """

    pdf = forms.FileField(
        label="PDF",
        required=False,
        help_text=(
            "Its form fields become the template's fields. A Word (DOCX), OpenDocument (ODT) "
            "or RTF document is converted to PDF."
        ),
    )
    kept_pdf = forms.CharField(required=False, widget=forms.HiddenInput)
    publish = forms.BooleanField(
        required=False, help_text="Publish the imported fields as version 1."
    )

    class Meta:
        model = PdfTemplate
        fields = ["organization", "title", "is_template"]

    def __init__(
        self,
        *args: Any,
        organizations: QuerySet[Organization] | None = None,
        user: Any = None,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        self.user_id = getattr(user, "pk", None)
        self.pdf_title = ""
        self.kept: StashedPdf | None = None  # the kept PDF this submission used
        # The file as the template's PDF (converted when it was an Office document).
        self.upload: PdfUpload | None = None
        self._new_upload: tuple[bytes, str] | None = None
        if organizations is not None:
            self.fields["organization"].queryset = organizations
            only = _only_organization(organizations, user)
            if only is not None:
                self.fields["organization"].initial = only.pk
        self.fields["title"].required = False

    def clean_pdf(self) -> bytes:
        upload = self.cleaned_data["pdf"]
        if not upload:
            return self._kept_pdf()
        if upload.size > MAX_PDF_BYTES:
            raise forms.ValidationError(f"The PDF is larger than {MAX_PDF_BYTES} bytes.")
        data = upload.read()
        name = Path(upload.name or "").name
        self._check(data, name)
        self._new_upload = (data, name)
        # Without a title, the template is named after the file.
        self.pdf_title = Path(name).stem
        return data

    def _kept_pdf(self) -> bytes:
        token = self.data.get(self.add_prefix("kept_pdf")) or ""
        kept = stashed_pdf(token, user_id=self.user_id) if token and self.user_id else None
        if kept is None:
            raise forms.ValidationError("Choose a PDF.", code="required")
        self.kept = kept
        self.pdf_title = Path(kept.name).stem
        self._check(kept.data, kept.name)  # converted again: the kept file is what was chosen
        return kept.data

    def _check(self, data: bytes, name: str) -> None:
        try:
            upload = template_upload(data, name)
            # The same import the save runs (text tags included); here only to report problems.
            template_import(upload.pdf)
        except ValidationFailed as refused:  # too large, or an Office document refused
            raise forms.ValidationError([field.message for field in refused.fields]) from None
        except ServiceError as busy:  # no converter free
            raise forms.ValidationError(busy.message) from None
        except ImportRefused as refused:
            raise forms.ValidationError(str(refused)) from None
        self.upload = upload

    def full_clean(self) -> None:
        super().full_clean()
        if not self.is_bound or not self._errors or "pdf" in self._errors:
            return
        if self._new_upload is not None and self.user_id is not None:
            data, name = self._new_upload
            self.kept = stash_pdf(data=data, name=name, user_id=self.user_id)
        if self.kept is not None:
            self.data = self.data.copy()
            self.data[self.add_prefix("kept_pdf")] = self.kept.token
            # The admin prints help text unescaped, and a file name may hold markup.
            kept = format_html(
                "Kept: {}. Choose a file only to upload another one.", self.kept.name
            )
            self.fields["pdf"].help_text = kept
            self["pdf"].help_text = kept  # the bound field may have been made already


def _only_organization(organizations: QuerySet[Organization], user: Any) -> Organization | None:
    """The organization to preselect: the only one offered, else the only one ``user`` is a
    member of (a superuser is offered all of them)."""
    offered = list(organizations[:2])
    if len(offered) == 1:
        return offered[0]
    if user is None or not getattr(user, "pk", None):
        return None
    mine = list(organizations.filter(membership__user=user)[:2])
    return mine[0] if len(mine) == 1 else None
