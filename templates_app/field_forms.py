"""Forms of the admin's "Edit fields & style" page (templates_app/fields_page.py): the document
style and one row per field of a page.

Every setting of a field has an input of its own; nothing is typed as JSON. The geometry that
belongs to a setting is derived from the field's box the way the visual editor derives it: a
new number of character boxes or lines splits the box evenly, a new number of radio options
splits it into that many buttons, "separate box for each part" lays the parts out by the
type's rows and weights (core/engine/field_types.py). Unchanged settings keep the geometry
they have, which may have been drawn by hand in the editor.

The rules of what a field may hold are not repeated here: the one validator
(templates_app.engine.validation, run by services.template_update_working) checks the result,
and the page puts its messages on the input they concern (``input_for_problem``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import forms

from core.engine.field_types import PARTS, TEMPLATE_TYPES
from core.engine.problems import Problem
from core.engine.style import parse_style
from core.engine.template_spec import ALIGNMENTS, FONT_WEIGHTS, ROTATIONS, STYLE_KEYS
from core.resources import font_library

BLANK = [("", "—")]

# The keys of ``format`` (core/engine/template_spec.py, FieldSpec.format) and their inputs.
FORMAT_KEYS = ("pattern", "decimals", "thousandsSeparator", "decimalSeparator", "currencySymbol")
# As many as the visual editor offers: a guard against a typo building thousands of boxes.
MAX_BOXES = 200
MAX_OPTIONS = 50


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


def _number(**attrs: Any) -> forms.NumberInput:
    return forms.NumberInput(attrs={"step": "any", **attrs})


class FieldRowForm(StyleRules):
    """One field of one page: its common settings on the row, the others under "More settings"
    (``MORE``)."""

    id = forms.CharField(
        max_length=200, label="ID", widget=forms.TextInput(attrs={"placeholder": "new id"})
    )
    alias = forms.CharField(max_length=500, required=False, label="Alias")
    # A blank first choice: the empty row for a new field stays unchanged (and is skipped)
    # unless a type is chosen.
    type = forms.ChoiceField(
        choices=BLANK + [(t.name, t.label) for t in TEMPLATE_TYPES.values()], label="Type"
    )
    # Not stripped: a label imported with a trailing space must save unchanged.
    label = forms.CharField(required=False, label="Label", strip=False)
    x = forms.FloatField(label="X", widget=_number())
    y = forms.FloatField(label="Y", widget=_number())
    width = forms.FloatField(min_value=0.1, label="Width", widget=_number(min="0.1"))
    height = forms.FloatField(min_value=0.1, label="Height", widget=_number(min="0.1"))
    readOnly = forms.BooleanField(required=False, label="Read-only")
    # --- More settings: style overrides ---
    fontFamily = forms.CharField(required=False, label="Font family")
    fontSize = forms.FloatField(required=False, label="Font size", widget=_number(min="1"))
    textColor = forms.CharField(
        required=False,
        label="Text colour",
        widget=forms.TextInput(attrs={"placeholder": "#RRGGBB"}),
    )
    alignment = forms.ChoiceField(
        required=False, choices=BLANK + [(a, a) for a in ALIGNMENTS], label="Alignment"
    )
    fontWeight = forms.ChoiceField(
        required=False, choices=BLANK + [(w, w) for w in FONT_WEIGHTS], label="Font weight"
    )
    # --- More settings: text ---
    maxLength = forms.IntegerField(
        required=False, label="Max length", widget=forms.NumberInput(attrs={"min": "1"})
    )
    autoSize = forms.BooleanField(required=False, label="Shrink text to fit")
    rotation = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=0,
        initial=0,
        choices=[(r, f"{r}°" if r else "Default") for r in ROTATIONS],
        label="Text rotation",
        help_text="Counter-clockwise in the box. Default: as the page is turned.",
    )
    # --- More settings: format ---
    # The placeholders show what the fill uses when a value is not set (fill/engine/formatting).
    format_pattern = forms.CharField(
        required=False,
        label="Date pattern",
        widget=forms.TextInput(attrs={"placeholder": "MM/DD/YYYY"}),
        help_text="Dates. YYYY, YY, MMMM, MMM, MM, M, DD, D, dddd, ddd.",
    )
    format_decimals = forms.IntegerField(
        required=False,
        label="Decimals",
        widget=forms.NumberInput(attrs={"min": "0", "max": "10", "placeholder": "as given"}),
    )
    # Not stripped: a space is a common thousands separator.
    format_thousandsSeparator = forms.CharField(
        required=False,
        strip=False,
        label="Thousands separator",
        widget=forms.TextInput(attrs={"placeholder": ","}),
    )
    format_decimalSeparator = forms.CharField(
        required=False,
        strip=False,
        label="Decimal separator",
        widget=forms.TextInput(attrs={"placeholder": "."}),
    )
    format_currencySymbol = forms.CharField(
        required=False,
        strip=False,
        label="Currency symbol",
        widget=forms.TextInput(attrs={"placeholder": "$"}),
        help_text="Dollar amounts.",
    )
    # --- More settings: the parts of the box ---
    boxes = forms.IntegerField(
        required=False,
        max_value=MAX_BOXES,
        label="Boxes or lines",
        widget=forms.NumberInput(attrs={"min": "1", "max": str(MAX_BOXES)}),
        help_text="Character boxes or wrapped lines. A new number splits the box evenly.",
    )
    options = forms.CharField(
        required=False,
        strip=False,
        label="Radio options",
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Radio group: one value per line. A new number of lines splits the box evenly.",
    )
    parts = forms.BooleanField(
        required=False,
        label="Separate box for each part",
        help_text="Full name, US address, phone.",
    )

    PRIMARY = ("alias", "type", "label", "x", "y", "width", "height", "readOnly")
    MORE_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("Style", STYLE_KEYS),
        ("Text", ("maxLength", "autoSize", "rotation")),
        ("Format (dates and numbers)", tuple(f"format_{key}" for key in FORMAT_KEYS)),
        ("Boxes, options and parts", ("boxes", "options", "parts")),
    )
    MORE = tuple(name for _, names in MORE_GROUPS for name in names)

    @classmethod
    def initial_for(cls, field: Mapping[str, Any]) -> dict[str, Any]:
        fmt = field.get("format") or {}
        return {
            "id": field["id"],
            "alias": field.get("alias", ""),
            "type": field["type"],
            "label": field.get("label", ""),
            **field["rect"],
            **field.get("style", {}),
            "readOnly": field.get("readOnly", False),
            "maxLength": field.get("maxLength"),
            "autoSize": field.get("autoSize", False),
            "rotation": field.get("rotation", 0),
            **{f"format_{key}": fmt[key] for key in FORMAT_KEYS if key in fmt},
            "boxes": len(field["boxes"]) if field.get("boxes") else None,
            "options": "\n".join(o["id"] for o in field.get("options") or ()),
            "parts": bool(field.get("parts")),
        }

    def clean_options(self) -> list[str]:
        # Blank lines are dropped, spaces kept: an option's id is the PDF's on-state name.
        lines = self.cleaned_data["options"].splitlines()
        values = [line for line in lines if line.strip()]
        if len(values) > MAX_OPTIONS:
            raise forms.ValidationError(f"At most {MAX_OPTIONS} options.")
        return values

    def more_has_errors(self) -> bool:
        """Whether a "More settings" input has an error (its disclosure then opens)."""
        return any(name in self.errors for name in self.MORE)

    def more_set(self) -> list[str]:
        """The "More settings" that hold a value, as "label value", for the disclosure's summary
        (closed disclosures keep a page of many fields short)."""
        shown = []
        for name in self.MORE:
            field = self.fields[name]
            value = self[name].value()
            if isinstance(field, forms.BooleanField):
                if field.to_python(value):
                    shown.append(str(field.label).lower())
                continue
            if name == "rotation" and str(value) in ("", "0", "None"):
                continue
            if value in (None, ""):
                continue
            text = " / ".join(str(value).split()) if name == "options" else str(value)
            shown.append(f"{str(field.label).lower()} {text}")
        return shown

    def field_json(
        self, page: int, *, stored: Mapping[str, Any] | None, rotate: int = 0
    ) -> dict[str, Any]:
        """The field as template JSON. ``stored`` is the field with this id in the working
        version (None for a new one): its geometry of boxes, options and parts is kept where
        the setting did not change, and so are format keys this form has no input for.
        ``rotate`` is the page's /Rotate, so splits run as the page is seen."""
        data = self.cleaned_data
        stored = stored or {}
        kind = data["type"]
        rect = {key: data[key] for key in ("x", "y", "width", "height")}
        field: dict[str, Any] = {
            "id": data["id"],
            "alias": data["alias"] or data["id"],
            "type": kind,
            "page": page,
            "rect": rect,
        }
        if data["label"]:
            field["label"] = data["label"]
        if style := {key: data[key] for key in STYLE_KEYS if data.get(key) not in (None, "")}:
            field["style"] = style
        fmt = {k: v for k, v in (stored.get("format") or {}).items() if k not in FORMAT_KEYS}
        for key in FORMAT_KEYS:
            if (value := data[f"format_{key}"]) not in (None, ""):
                fmt[key] = value
        if fmt:
            field["format"] = fmt
        if data["readOnly"]:
            field["readOnly"] = True
        if data["autoSize"]:
            field["autoSize"] = True
        if data["rotation"]:
            field["rotation"] = data["rotation"]

        max_length = data["maxLength"]
        count = data["boxes"]
        if count is not None and count > 0:
            old = stored.get("boxes") or []
            if len(old) == count:
                field["boxes"] = old
            else:
                direction = "columns" if kind == "charList" else "rows"
                field["boxes"] = _split(rect, [1.0] * count, direction, rotate)
                # As in the editor: the character count follows the boxes unless it was edited.
                if kind == "charList" and max_length == stored.get("maxLength"):
                    max_length = count
        if max_length is not None:
            field["maxLength"] = max_length

        if values := data["options"]:
            old = stored.get("options") or []
            if len(old) == len(values):
                rects = [option["rect"] for option in old]
            else:
                wide = (rect["width"] >= rect["height"]) == (rotate % 180 == 0)
                rects = _split(rect, [1.0] * len(values), "columns" if wide else "rows", rotate)
            field["options"] = [{"id": v, "rect": r} for v, r in zip(values, rects, strict=True)]

        if data["parts"] and kind in PARTS:
            if stored.get("parts") and stored.get("type") == kind:
                field["parts"] = stored["parts"]
            else:
                field["parts"] = part_layout(kind, rect, rotate)
        return field


def part_layout(kind: str, rect: Mapping[str, float], rotate: int = 0) -> dict[str, Any]:
    """The boxes of a complex field's parts: its box split into the type's rows, top to bottom
    as the page is seen, and each row into its parts by weight (as the editor lays them out)."""
    rows = TEMPLATE_TYPES[kind].part_rows
    parts: dict[str, Any] = {}
    for row, row_rect in zip(rows, _split(rect, [1.0] * len(rows), "rows", rotate), strict=True):
        cells = _split(row_rect, [part.weight for part in row], "columns", rotate)
        for part, cell in zip(row, cells, strict=True):
            parts[part.name] = cell
    return parts


# For each page /Rotate: the PDF axis that runs left to right as the page is seen ("columns")
# and top to bottom ("rows"), and whether it runs against the axis (pdf.js viewport transforms).
_SEEN: dict[tuple[str, int], tuple[str, bool]] = {
    ("columns", 0): ("x", False),
    ("rows", 0): ("y", True),
    ("columns", 90): ("y", False),
    ("rows", 90): ("x", False),
    ("columns", 180): ("x", True),
    ("rows", 180): ("y", False),
    ("columns", 270): ("y", True),
    ("rows", 270): ("x", True),
}


def _split(
    rect: Mapping[str, float], weights: Sequence[float], direction: str, rotate: int
) -> list[dict[str, float]]:
    """``rect`` cut into ``len(weights)`` pieces sized by weight, side by side ("columns") or
    stacked ("rows") as the page is seen, in reading order."""
    axis, backwards = _SEEN.get((direction, rotate % 360), _SEEN[(direction, 0)])
    size_key = "width" if axis == "x" else "height"
    start, length = rect[axis], rect[size_key]
    total = sum(weights) or 1.0
    pieces = []
    offset = 0.0
    for weight in weights:
        size = length * weight / total
        low = start + length - offset - size if backwards else start + offset
        pieces.append({**rect, axis: round(low, 3), size_key: round(size, 3)})
        offset += size
    return pieces


FieldRowFormSet = forms.formset_factory(FieldRowForm, extra=1, can_delete=True)
