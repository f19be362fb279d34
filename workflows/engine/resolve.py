"""What a submission's values amount to: checked pages, resolved payloads, the data each
document is filled with, the names of signers, a title and the progress of the whole."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from workflows.engine.definition import (
    DocumentDef,
    FieldDef,
    FieldRef,
    WebformDef,
    WorkflowDef,
)
from workflows.engine.rules import (
    EMPTY,
    FieldInvalid,
    check_form_value,
    check_value,
    form_value,
    has_value,
)


@dataclass(frozen=True)
class Checked:
    """The outcome of checking some fields: the normalized values of those that passed (EMPTY
    for those left blank), and a message for each that did not."""

    values: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors


def _optional(definition: FieldDef) -> FieldDef:
    return FieldDef(**{**definition.__dict__, "required": False})


def check_fields(
    fields: tuple[FieldDef, ...],
    raw: Mapping[str, Any],
    *,
    enforce_required: bool = True,
    check: Callable[[FieldDef, Any], Any] = check_value,
    known: Mapping[str, Any] | None = None,
) -> Checked:
    """Check ``raw[key]`` for each of ``fields`` (absent keys are blank). A field whose
    ``showWhen`` field has no value (among those checked before it, else in ``known``: the
    stored payload) is hidden: not required, and its value is dropped (EMPTY)."""
    checked = Checked()
    seen = dict(known or {})
    for definition in fields:
        if definition.show_when and not has_value(seen.get(definition.show_when)):
            checked.values[definition.key] = EMPTY
            seen.pop(definition.key, None)
            continue
        rule = definition if enforce_required else _optional(definition)
        try:
            value = check(rule, raw.get(definition.key))
        except FieldInvalid as invalid:
            checked.errors[definition.key] = str(invalid)
            seen.pop(definition.key, None)
            continue
        checked.values[definition.key] = value
        seen[definition.key] = value
    return checked


def hidden_keys(webform: WebformDef, payload: Mapping[str, Any]) -> set[str]:
    """The keys of the webform's fields that ``payload`` hides (their showWhen field has no
    value, or is itself hidden)."""
    hidden: set[str] = set()
    for definition in webform.fields:
        if definition.show_when and (
            definition.show_when in hidden or not has_value(payload.get(definition.show_when))
        ):
            hidden.add(definition.key)
    return hidden


def drop_hidden(webform: WebformDef, payload: Mapping[str, Any]) -> dict[str, Any]:
    """``payload`` without the values of the fields it hides: a value given while its field was
    shown goes when the answer that showed it is cleared."""
    hidden = hidden_keys(webform, payload)
    return {key: value for key, value in payload.items() if key not in hidden}


def check_form_page(
    webform: WebformDef,
    page: int,
    get: Callable[[str], str | None],
    *,
    enforce_required: bool = True,
    known: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], Checked]:
    """The posted page of a webform: its wire values (to show again on an error) and the check,
    with the page's own rules (``check_form_value``: an image only as an uploaded file).
    ``known`` is what the webform holds so far (for the showWhen of earlier pages' fields)."""
    fields = webform.pages[page].fields
    raw = {f.key: form_value(f, get) for f in fields}
    return raw, check_fields(
        fields, raw, enforce_required=enforce_required, check=check_form_value, known=known
    )


def check_payload(
    webform: WebformDef,
    payload: Mapping[str, Any],
    *,
    only_given: bool,
    known: Mapping[str, Any] | None = None,
) -> Checked:
    """forgeSubmit's payload: with ``only_given`` the keys present are checked as optional
    values (a partial save); otherwise every field, required ones included. Keys that name no
    field are ignored, as fill ignores unknown aliases. ``known`` is the stored payload (what a
    showWhen not in ``payload`` looks at)."""
    if only_given:
        fields = tuple(f for f in webform.fields if f.key in payload)
        return check_fields(fields, payload, enforce_required=False, known=known)
    return check_fields(webform.fields, payload, known=known)


def merged(stored: Mapping[str, Any], checked: Checked) -> dict[str, Any]:
    """``stored`` updated with the values that passed; blank ones are removed."""
    out = dict(stored)
    for key, value in checked.values.items():
        if value is EMPTY:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def missing_required(webform: WebformDef, payload: Mapping[str, Any]) -> Checked:
    """Every field checked against the stored payload: what stops the webform completing (a
    hidden field never does)."""
    return check_fields(webform.fields, payload, known=payload)


def first_page_with_errors(webform: WebformDef, errors: Mapping[str, str]) -> int:
    for index, page in enumerate(webform.pages):
        if any(f.key in errors for f in page.fields):
            return index
    return 0


def resolved_payload(webform: WebformDef, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's ``resolvedPayload``: each field with a value, keyed by its key, as
    ``{type, value, label}``, in the webform's order."""
    return {
        f.key: {"type": f.type, "value": payload[f.key], "label": f.label}
        for f in webform.fields
        if payload.get(f.key) is not None
    }


def value_of(
    definition: WorkflowDef, payloads: Mapping[str, Mapping[str, Any]], ref: FieldRef
) -> Any:
    """The stored value of a field of the workflow; ``payloads`` are keyed by webform slug."""
    return (payloads.get(ref.forge) or {}).get(ref.field)


def document_data(
    definition: WorkflowDef, document: DocumentDef, payloads: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """The fill ``data`` of one document: each mapped alias with its field's value (fields left
    blank are left out, so their template fields stay unfilled)."""
    data: dict[str, Any] = {}
    for mapping in document.mappings:
        value = value_of(definition, payloads, mapping.source)
        if value is not None:
            data[mapping.alias] = value
    return data


def person_name(value: Any) -> str:
    """A full name (or plain text) as one line: "Ada B Lovelace"."""
    if isinstance(value, Mapping):
        return " ".join(str(value[p]) for p in ("firstName", "mi", "lastName") if value.get(p))
    return str(value or "").strip()


def display_title(definition: WorkflowDef, payloads: Mapping[str, Mapping[str, Any]]) -> str:
    """The submission's title: the first name or text value given, else the workflow's name."""
    for webform in definition.webforms:
        payload = payloads.get(webform.slug) or {}
        for kind in ("fullName", "shortText"):
            for f in webform.fields:
                if f.type == kind and payload.get(f.key):
                    title = person_name(payload[f.key])
                    if title:
                        return f"{definition.name}: {title}"[:255]
    return definition.name


def completion_percentage(
    definition: WorkflowDef, completed: set[str], *, signed: bool = False
) -> float:
    """How far along a submission is, from 0 to 100: each webform completed is a step, and the
    signing step (when there is one) is the last."""
    steps = len(definition.webforms) + (1 if definition.signers else 0)
    done = sum(1 for w in definition.webforms if w.slug in completed)
    if definition.signers and signed:
        done += 1
    return round(100.0 * done / steps, 1) if steps else 100.0


def answer_text(field: FieldDef, value: Any) -> str:
    """A stored value as one line for people to read back (the summary of the last page)."""
    if value is None:
        return ""
    if field.type == "checkbox":
        return "Yes" if value else "No"
    if field.type == "fullName":
        return person_name(value)
    if field.type == "usAddress" and isinstance(value, Mapping):
        street = ", ".join(str(value[p]) for p in ("street1", "street2") if value.get(p))
        place = " ".join(str(value[p]) for p in ("state", "zip") if value.get(p))
        return ", ".join(part for part in (street, str(value.get("city") or ""), place) if part)
    if field.type == "phone" and isinstance(value, Mapping):
        return str(value.get("num") or "")
    if field.type == "radioGroup":
        return dict(field.options).get(str(value), str(value))
    if field.type == "imageFile":
        return "An image"
    if field.type == "ssn":  # never the whole number on a page a shared screen may show
        return f"•••-••-{str(value)[-4:]}"
    if field.type == "dollar":
        return f"${value:,.2f}" if isinstance(value, int | float) else str(value)
    if field.type == "percent":
        return f"{value}%"
    if isinstance(value, list):
        return " / ".join(str(v) for v in value)
    return str(value)


def answers(
    definition: WorkflowDef, payloads: Mapping[str, Mapping[str, Any]]
) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each webform's name and its answers given, ``(label, text)``, in the webforms' order."""
    out = []
    for webform in definition.webforms:
        payload = payloads.get(webform.slug) or {}
        given = [
            (f.label, answer_text(f, payload[f.key]))
            for f in webform.fields
            if payload.get(f.key) is not None
        ]
        if given:
            out.append((webform.name, given))
    return out
