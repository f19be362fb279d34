"""Admin forms for templates: the upload that imports a PDF, document style, field rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django import forms
from django.db.models import QuerySet

from accounts.models import Organization
from core.engine.problems import Problem
from core.engine.style import parse_style
from core.engine.template_spec import ALIGNMENTS, FIELD_TYPES, FONT_WEIGHTS, STYLE_KEYS
from core.resources import font_library
from templates_app.engine.pdf_import import ImportRefused, import_pdf
from templates_app.models import PdfTemplate
from templates_app.services import MAX_PDF_BYTES
from templates_app.upload_stash import StashedPdf, stash_pdf, stashed_pdf

BLANK = [("", "—")]


class TemplateUploadForm(forms.ModelForm):
    """Upload a PDF; its form fields become the new template's fields.

    The organization is preselected when the person has only one. A PDF that passed its checks
    is kept (templates_app.upload_stash) when another field is wrong, so it need not be chosen
    again: the file input is then optional and a hidden field names the kept file.
    """

    pdf = forms.FileField(
        label="PDF", required=False, help_text="Its form fields become the template's fields."
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
        self._check(data)
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
        return kept.data

    @staticmethod
    def _check(data: bytes) -> None:
        try:
            import_pdf(data)  # the same import the save runs; here only to report problems
        except ImportRefused as refused:
            raise forms.ValidationError(str(refused)) from None

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
            kept = f"Kept: {self.kept.name}. Choose a file only to upload another one."
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


class StyleRules(forms.Form):
    """Checks the style fields with the one style parser (core.engine.style), font names
    included, so the admin accepts exactly what the API and the editor accept."""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = {key: data[key] for key in STYLE_KEYS if data.get(key) not in (None, "")}
        problems: list[Problem] = []
        style = parse_style(raw, "", problems, font_problem=font_library().family_problem)
        for problem in problems:
            self.add_error(problem.path, problem.message)
        if style.text_color is not None:
            data["textColor"] = style.text_color  # normalized: "#RRGGBB"
        return data


class StyleForm(StyleRules):
    """Document-level style of the working version (every value optional)."""

    fontFamily = forms.CharField(required=False, label="Font family")
    fontSize = forms.FloatField(required=False, label="Font size")
    textColor = forms.CharField(required=False, label="Text colour", help_text="#RRGGBB")
    alignment = forms.ChoiceField(required=False, choices=BLANK + [(a, a) for a in ALIGNMENTS])
    fontWeight = forms.ChoiceField(
        required=False, choices=BLANK + [(w, w) for w in FONT_WEIGHTS], label="Font weight"
    )

    def style_json(self) -> dict[str, Any]:
        return {key: value for key, value in self.cleaned_data.items() if value not in (None, "")}


class FieldRowForm(StyleRules):
    """One field of one page; the less common settings travel as JSON in ``extra``."""

    id = forms.CharField(max_length=200)
    alias = forms.CharField(max_length=500, required=False)
    type = forms.ChoiceField(choices=[(t, t) for t in FIELD_TYPES])
    label = forms.CharField(required=False)
    x = forms.FloatField()
    y = forms.FloatField()
    width = forms.FloatField(min_value=0.1)
    height = forms.FloatField(min_value=0.1)
    fontFamily = forms.CharField(required=False)
    fontSize = forms.FloatField(required=False)
    textColor = forms.CharField(required=False)
    alignment = forms.ChoiceField(required=False, choices=BLANK + [(a, a) for a in ALIGNMENTS])
    fontWeight = forms.ChoiceField(required=False, choices=BLANK + [(w, w) for w in FONT_WEIGHTS])
    readOnly = forms.BooleanField(required=False)
    extra = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 1, "cols": 30}),
        help_text="JSON: format, boxes, options, parts, maxLength, autoSize, rotation",
    )

    EXTRA_KEYS = ("format", "boxes", "options", "parts", "maxLength", "autoSize", "rotation")

    @classmethod
    def initial_for(cls, field: dict[str, Any]) -> dict[str, Any]:
        style = field.get("style", {})
        extra = {key: field[key] for key in cls.EXTRA_KEYS if key in field}
        return {
            "id": field["id"],
            "alias": field.get("alias", ""),
            "type": field["type"],
            "label": field.get("label", ""),
            **field["rect"],
            **style,
            "readOnly": field.get("readOnly", False),
            "extra": json.dumps(extra) if extra else "",
        }

    def clean_extra(self) -> dict[str, Any]:
        raw = self.cleaned_data["extra"].strip()
        if not raw:
            return {}
        try:
            value = json.loads(raw)
        except ValueError:
            raise forms.ValidationError("Not valid JSON.") from None
        if not isinstance(value, dict) or set(value) - set(self.EXTRA_KEYS):
            raise forms.ValidationError(f"An object with keys among {', '.join(self.EXTRA_KEYS)}.")
        return value

    def field_json(self, page: int) -> dict[str, Any]:
        data = self.cleaned_data
        style = {key: data[key] for key in STYLE_KEYS if data.get(key) not in (None, "")}
        field: dict[str, Any] = {
            "id": data["id"],
            "alias": data["alias"] or data["id"],
            "type": data["type"],
            "page": page,
            "rect": {key: data[key] for key in ("x", "y", "width", "height")},
            **data["extra"],
        }
        if data["label"]:
            field["label"] = data["label"]
        if style:
            field["style"] = style
        if data["readOnly"]:
            field["readOnly"] = True
        return field


FieldRowFormSet = forms.formset_factory(FieldRowForm, extra=1, can_delete=True)
