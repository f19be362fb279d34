"""Admin forms for workflows: a webform field (its default and options as text, checked by the
engine's rules), a signer's signing boxes, the mapping of a document, and the JSON import."""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django import forms
from django.db.models import QuerySet

from accounts.models import Organization
from core.engine.problems import Problem
from workflows.engine.definition import parse_field, parse_sign_boxes
from workflows.models import WebformField, WorkflowDocument, WorkflowSigner
from workflows.services import TemplateAlias, field_columns

_TRUE = {"true", "yes", "1", "on", "checked"}
_FALSE = {"false", "no", "0", "off", "unchecked"}
_PROPERTY = {
    "key": "key",
    "type": "type",
    "label": "label",
    "helpText": "help_text",
    "default": "default_text",
    "options": "options_text",
    "baseRegion": "base_region",
    "showWhen": "show_when",
    "showWhen.field": "show_when",
    "validation.min": "min_value",
    "validation.max": "max_value",
    "validation.minLength": "min_length",
    "validation.maxLength": "max_length",
}


def _default_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


def _options_text(options: Iterable[Any]) -> str:
    lines = []
    for option in options or []:
        value, label = option.get("value", ""), option.get("label", "")
        lines.append(value if not label or label == value else f"{value}: {label}")
    return "\n".join(lines)


class WebformFieldForm(forms.ModelForm):
    """A field of a webform. The default and a radio group's options are typed as text and
    checked by the same rules as the values people give (workflows.engine.rules)."""

    default_text = forms.CharField(
        label="Default",
        required=False,
        widget=forms.TextInput(attrs={"class": "wf-w-default"}),
        help_text="As typed in the field; true/false for a checkbox; JSON for a name, address or "
        'phone ({"firstName": "Ada", "lastName": "Lovelace"}).',
    )
    options_text = forms.CharField(
        label="Options",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "class": "wf-w-options"}),
        help_text="Radio groups: one option a line, value: label.",
    )

    class Meta:
        model = WebformField
        fields = [
            "page",
            "key",
            "type",
            "label",
            "required",
            "help_text",
            "default_text",
            "options_text",
            "min_value",
            "max_value",
            "min_length",
            "max_length",
            "base_region",
            "show_when",
            "position",
        ]
        widgets = {
            "position": forms.HiddenInput(),
            "help_text": forms.TextInput(attrs={"class": "wf-w-help"}),
            "label": forms.TextInput(attrs={"class": "wf-w-label"}),
            "key": forms.TextInput(attrs={"class": "wf-w-key"}),
            "base_region": forms.TextInput(attrs={"class": "wf-w-tiny"}),
            "show_when": forms.TextInput(attrs={"class": "wf-w-key"}),
            "min_value": forms.NumberInput(attrs={"class": "wf-w-number"}),
            "max_value": forms.NumberInput(attrs={"class": "wf-w-number"}),
            "min_length": forms.NumberInput(attrs={"class": "wf-w-number"}),
            "max_length": forms.NumberInput(attrs={"class": "wf-w-number"}),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["default_text"].initial = _default_text(self.instance.default)
            self.fields["options_text"].initial = _options_text(self.instance.options)
            for name in ("min_value", "max_value"):
                value = getattr(self.instance, name)
                if value is not None:  # 1, not 1.000000
                    self.initial[name] = format(value.normalize(), "f")
        self.fields["position"].required = False

    def _raw(self) -> dict[str, Any]:
        data = self.cleaned_data
        kind = data.get("type") or ""
        text = (data.get("default_text") or "").strip()
        default: Any = None
        if text:
            if kind == "checkbox" and text.lower() in _TRUE | _FALSE:
                default = text.lower() in _TRUE
            elif text.startswith(("{", "[")):
                try:
                    default = json.loads(text)
                except ValueError:
                    self.add_error("default_text", "Not valid JSON.")
            else:
                default = text
        options = []
        for line in (data.get("options_text") or "").splitlines():
            if not line.strip():
                continue
            value, _, label = line.partition(":")
            options.append({"value": value.strip(), "label": label.strip() or value.strip()})
        validation = {
            "min": data.get("min_value"),
            "max": data.get("max_value"),
            "minLength": data.get("min_length"),
            "maxLength": data.get("max_length"),
        }
        return {
            "key": data.get("key") or "",
            "type": kind,
            "label": data.get("label") or "",
            "required": bool(data.get("required")),
            "helpText": data.get("help_text") or "",
            "default": default,
            # Decimals go as text, which the engine reads exactly; lengths are whole numbers.
            "validation": {
                k: (str(v) if isinstance(v, Decimal) else v) for k, v in validation.items()
            },
            "options": options,
            "baseRegion": data.get("base_region") or "US",
            "showWhen": (
                {"field": data["show_when"], "hasValue": True} if data.get("show_when") else None
            ),
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        problems: list[Problem] = []
        field = parse_field(self._raw(), "", problems)
        for problem in problems:
            name = _PROPERTY.get(problem.path.lstrip("."))
            if name is None and problem.path.lstrip(".").startswith("options"):
                name = "options_text"
            self.add_error(name if name in self.fields else None, problem.message)
        if cleaned.get("position") is None:
            cleaned["position"] = 0
        if field is not None:
            columns = field_columns(field)
            self.instance.default = columns["default"]
            self.instance.options = columns["options"]
            cleaned["base_region"] = columns["base_region"]
        return cleaned


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
        try:
            raw = json.loads(self.cleaned_data["boxes_text"])
        except ValueError:
            raise forms.ValidationError("Not valid JSON.") from None
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
        try:
            return json.loads(upload.read())
        except ValueError:
            raise forms.ValidationError("The file is not JSON.") from None
