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

BLANK = [("", "—")]


class TemplateUploadForm(forms.ModelForm):
    pdf = forms.FileField(label="PDF", help_text="Its form fields become the template's fields.")
    publish = forms.BooleanField(
        required=False, help_text="Publish the imported fields as version 1."
    )

    class Meta:
        model = PdfTemplate
        fields = ["organization", "title", "is_template"]

    def __init__(
        self, *args: Any, organizations: QuerySet[Organization] | None = None, **kwargs: Any
    ):
        super().__init__(*args, **kwargs)
        if organizations is not None:
            self.fields["organization"].queryset = organizations
        self.fields["title"].required = False

    def clean_pdf(self) -> bytes:
        upload = self.cleaned_data["pdf"]
        if upload.size > MAX_PDF_BYTES:
            raise forms.ValidationError(f"The PDF is larger than {MAX_PDF_BYTES} bytes.")
        data = upload.read()
        # Without a title, the template is named after the file.
        self.pdf_title = Path(upload.name or "").stem
        try:
            import_pdf(data)  # the same import the save runs; here only to report problems
        except ImportRefused as refused:
            raise forms.ValidationError(str(refused)) from None
        return data


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
