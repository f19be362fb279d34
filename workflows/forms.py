"""Admin forms for workflows: a signer's signing boxes, the mapping of a document, and the JSON
import. (A webform's fields are edited in the builder: workflows/builder/admin.py.)"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.db.models import QuerySet

from accounts.models import Organization
from core.errors import ValidationFailed
from core.parsers import decode_json
from workflows.definitions.mapping import TemplateAlias
from workflows.engine.definition import parse_sign_boxes
from workflows.models import WebformField, WorkflowDocument, WorkflowSigner


def _json_of(raw: bytes) -> Any:
    """JSON read as the API reads it (core.parsers.decode_json): within the depth limit, its text
    without NUL, control characters or lone surrogates (PostgreSQL stores no NUL)."""
    try:
        return decode_json(raw)
    except ValidationFailed as refused:
        raise forms.ValidationError(
            [f"{f.property}: {f.message}" if f.property else f.message for f in refused.fields]
        ) from None


class SignerForm(forms.ModelForm):
    boxes_text = forms.CharField(
        label="Signing boxes",
        widget=forms.Textarea(attrs={"rows": 3, "cols": 40}),
        help_text='JSON: [{"id": "sig1", "type": "signature", "document": 0, "page": 0, '
        '"rect": {"x": 72, "y": 100, "width": 200, "height": 40}}]; document is the index of '
        "the workflow's document, page from 0, points from the lower-left corner.",
    )

    class Meta:
        model = WorkflowSigner
        fields = ["alias_id", "name_field", "email_field", "signer_type", "routing_order"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["boxes_text"].initial = json.dumps(self.instance.boxes)

    def clean_boxes_text(self) -> list[dict[str, Any]]:
        raw = _json_of(self.cleaned_data["boxes_text"].encode())
        boxes, problems = parse_sign_boxes(raw)
        if problems:
            raise forms.ValidationError([f"{p.path}: {p.message}" for p in problems])
        if not boxes:
            raise forms.ValidationError("A signer needs at least one box to sign.")
        self.instance.boxes = [box.to_json() for box in boxes]
        return self.instance.boxes


class MappingForm(forms.Form):
    """One select per alias of the document's template: the webform field that fills it."""

    def __init__(
        self,
        *args: Any,
        document: WorkflowDocument,
        choices: list[tuple[TemplateAlias, list[WebformField]]],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.document = document
        self.rows = []
        current = {m.alias: m.field_id for m in document.mappings.all()}
        for alias, fields in choices:
            groups: dict[str, list[tuple[str, str]]] = {}
            for field in fields:
                groups.setdefault(field.webform.name, []).append(
                    (str(field.pk), f"{field.label} ({field.key}, {field.type})")
                )
            name = f"alias_{len(self.rows)}"
            self.fields[name] = forms.ChoiceField(
                label=alias.alias,
                required=False,
                choices=[("", "— not filled —"), *groups.items()],
                initial=str(current[alias.alias]) if alias.alias in current else "",
            )
            self.rows.append((alias, name, {f.pk: f for f in fields}))

    def chosen(self) -> dict[str, WebformField | None]:
        out: dict[str, WebformField | None] = {}
        for alias, name, fields in self.rows:
            value = self.cleaned_data.get(name)
            out[alias.alias] = fields.get(int(value)) if value else None
        return out

    def bound_rows(self) -> list[tuple[TemplateAlias, Any]]:
        return [(alias, self[name]) for alias, name, _ in self.rows]


class ImportForm(forms.Form):
    organization = forms.ModelChoiceField(queryset=Organization.objects.none())
    file = forms.FileField(label="JSON file", help_text="A file written by Export as JSON.")
    publish = forms.BooleanField(required=False, help_text="Publish it once imported.")

    def __init__(self, *args: Any, organizations: QuerySet[Organization], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["organization"].queryset = organizations

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > 5 * 1024 * 1024:
            raise forms.ValidationError("The file is larger than 5 MB.")
        return _json_of(upload.read())
