"""What a submission's values amount to: checked pages, resolved payloads, the data each
document is filled with, the names of signers, a title and the progress of the whole."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from workflows.engine.conditions import condition_holds
from workflows.engine.defs import (
    DocumentDef,
    FieldDef,
    FieldRef,
    GroupDef,
    WebformDef,
    WorkflowDef,
)
from workflows.engine.entries import EntriesInvalid, check_entries, column, form_entries
from workflows.engine.form_inputs import form_value
from workflows.engine.messages import FieldInvalid, Message, pgettext
from workflows.engine.numbers import (
    ENGLISH,
    NumberFormat,
    written_money,
    written_number,
)
from workflows.engine.rules import EMPTY, check_form_value, check_value


@dataclass(frozen=True)
class Checked:
    """The outcome of checking some fields and groups: the normalized values of those that
    passed (EMPTY for those left blank), and a message for each that did not, keyed by its key
    (``<group>.<index>.<field>`` for a field of a group's entry, ``<group>`` for the group)."""

    values: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, Message] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors


Item = FieldDef | GroupDef


def _optional(definition: FieldDef) -> FieldDef:
    return FieldDef(**{**definition.__dict__, "required": False})


def page_conditions(webform: WebformDef) -> dict[str, str]:
    """The condition each field or group of a conditional page waits for (its page's
    showWhen, as workflows.engine.conditions.condition_text keeps it)."""
    return {
        item.key: page.show_when for page in webform.pages if page.show_when for item in page.items
    }


def check_fields(
    fields: tuple[Item, ...],
    raw: Mapping[str, Any],
    *,
    enforce_required: bool = True,
    check: Callable[[FieldDef, Any], Any] = check_value,
    known: Mapping[str, Any] | None = None,
    conditions: Mapping[str, str] | None = None,
) -> Checked:
    """Check ``raw[key]`` for each of ``fields`` (fields and repeating groups; absent keys are
    blank). A field whose ``showWhen`` does not hold (on the values checked before it, else in
    ``known``: the stored payload), or whose page's does not (``conditions``, from
    ``page_conditions``), is hidden: not required, and its value is dropped (EMPTY)."""
    checked = Checked()
    seen = dict(known or {})
    for definition in fields:
        waits_for = [definition.show_when] if isinstance(definition, FieldDef) else []
        waits_for.append((conditions or {}).get(definition.key, ""))
        if not all(condition_holds(condition, seen) for condition in waits_for):
            checked.values[definition.key] = EMPTY
            seen.pop(definition.key, None)
            continue
        try:
            if isinstance(definition, GroupDef):
                value = check_entries(
                    definition, raw.get(definition.key), enforce_required=enforce_required,
                    check=check,
                )  # fmt: skip
            else:
                rule = definition if enforce_required else _optional(definition)
                value = check(rule, raw.get(definition.key))
        except FieldInvalid as invalid:
            checked.errors[definition.key] = invalid.message
            seen.pop(definition.key, None)
            continue
        except EntriesInvalid as invalid:
            for suffix, message in invalid.errors.items():
                checked.errors[f"{definition.key}.{suffix}" if suffix else definition.key] = message
            seen.pop(definition.key, None)
            continue
        checked.values[definition.key] = value
        seen[definition.key] = value
    return checked


def _hidden(webform: WebformDef, payload: Mapping[str, Any]) -> tuple[set[int], set[str]]:
    pages: set[int] = set()
    keys: set[str] = set()

    def waits(condition: str) -> bool:
        # A value its own condition hides counts as not given.
        shown = {key: value for key, value in payload.items() if key not in keys}
        return not condition_holds(condition, shown)

    for index, page in enumerate(webform.pages):
        if waits(page.show_when):
            pages.add(index)
            keys.update(item.key for item in page.items)
            continue
        keys.update(f.key for f in page.fields if waits(f.show_when))
    return pages, keys


def hidden_pages(webform: WebformDef, payload: Mapping[str, Any]) -> set[int]:
    """The indexes of the pages ``payload`` hides: their showWhen does not hold (a hidden
    field's value counting as not given). They are skipped, and their fields are hidden."""
    return _hidden(webform, payload)[0]


def hidden_keys(webform: WebformDef, payload: Mapping[str, Any]) -> set[str]:
    """The keys of the webform's fields and groups that ``payload`` hides: their showWhen, or
    their page's, does not hold (a hidden field's value counting as not given)."""
    return _hidden(webform, payload)[1]


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
    number_format: NumberFormat = ENGLISH,
) -> tuple[dict[str, Any], Checked]:
    """The posted page of a webform: its wire values (to show again on an error) and the check,
    with the page's own rules (``check_form_value``: an image only as an uploaded file; numbers
    as ``number_format``, the page's language, writes them).
    ``known`` is what the webform holds so far (for the showWhen of earlier pages' fields)."""
    shown = webform.pages[page]
    raw: dict[str, Any] = {f.key: form_value(f, get) for f in shown.fields}
    raw.update({g.key: form_entries(g, get) for g in shown.groups})
    checked = check_fields(
        shown.items, raw, enforce_required=enforce_required,
        check=partial(check_form_value, number_format=number_format),
        known=known, conditions=page_conditions(webform),
    )  # fmt: skip
    return raw, checked


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
    conditions = page_conditions(webform)
    if only_given:
        fields = tuple(f for f in webform.items if f.key in payload)
        return check_fields(
            fields, payload, enforce_required=False, known=known, conditions=conditions
        )
    return check_fields(webform.items, payload, known=known, conditions=conditions)


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
    hidden field, or a field of a hidden page, never does)."""
    return check_fields(webform.items, payload, known=payload, conditions=page_conditions(webform))


def webform_saved(
    webform: WebformDef, stored: Mapping[str, Any], checked: Checked, *, complete: bool
) -> tuple[dict[str, Any], dict[str, Message]]:
    """What a save makes of ``webform``'s payload: ``stored`` updated with ``checked``, without
    what is hidden; and, when the save completes the webform, what stops it completing (empty
    when nothing does). One call for the save's three steps, so that its reader stays here."""
    payload = drop_hidden(webform, merged(stored, checked))
    missing = missing_required(webform, payload).errors if complete else {}
    return payload, missing


def first_page_with_errors(webform: WebformDef, errors: Mapping[str, Any]) -> int:
    keys = {key.split(".")[0] for key in errors}
    for index, page in enumerate(webform.pages):
        if any(item.key in keys for item in page.items):
            return index
    return 0


def resolved_payload(webform: WebformDef, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's ``resolvedPayload``: each field with a value, keyed by its key, as
    ``{type, value, label}``, in the webform's order; a repeating group as ``{type: "group",
    value: [<entry>...], label}``, each entry resolved the same way."""
    out: dict[str, Any] = {}
    for item in webform.items:
        value = payload.get(item.key)
        if value is None:
            continue
        if isinstance(item, GroupDef):
            entries = [
                {
                    f.key: {"type": f.type, "value": entry[f.key], "label": f.label}
                    for f in item.fields
                    if entry.get(f.key) is not None
                }
                for entry in value
            ]
            out[item.key] = {"type": "group", "value": entries, "label": item.label}
        else:
            out[item.key] = {"type": item.type, "value": value, "label": item.label}
    return out


def value_of(
    definition: WorkflowDef, payloads: Mapping[str, Mapping[str, Any]], ref: FieldRef
) -> Any:
    """The stored value of a field of the workflow (``payloads`` are keyed by webform slug):
    for a field of a repeating group, its column: one value per entry."""
    payload = payloads.get(ref.forge) or {}
    group = definition.group_of(ref)
    if group is not None:
        return column(payload.get(group.key), ref.field)
    return payload.get(ref.field)


def document_data(
    definition: WorkflowDef, document: DocumentDef, payloads: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """The fill ``data`` of one document: each mapped alias with its field's value (fields left
    blank are left out, so their template fields stay unfilled). A field of a repeating group
    fills a template array, a row per entry; entries beyond its rows repeat its page."""
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


@dataclass(frozen=True)
class SigningAnswers:
    """The answers a signing step's packet is made of, read from the payloads at once: its
    title, each signer's name and email (in the definition's order), each document's data."""

    title: str
    people: tuple[tuple[str, Any], ...]
    data: tuple[dict[str, Any], ...]


def signing_answers(
    definition: WorkflowDef, payloads: Mapping[str, Mapping[str, Any]]
) -> SigningAnswers:
    """The signing step's answers (``SigningAnswers``): a signer without an email field has ""."""
    people = tuple(
        (
            person_name(value_of(definition, payloads, signer.name_field)),
            value_of(definition, payloads, signer.email_field) if signer.email_field else "",
        )
        for signer in definition.signers
    )
    return SigningAnswers(
        title=display_title(definition, payloads),
        people=people,
        data=tuple(document_data(definition, d, payloads) for d in definition.documents),
    )


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


def _same(text: str) -> str:
    return text


def _isolated(text: str) -> str:
    """What the author or the reader wrote, put into a sentence: between FSI and PDI (HTML's
    <bdi> as characters), so it keeps its own direction on a right-to-left page."""
    return f"\u2068{text}\u2069" if text else text


def answer_text(
    field: FieldDef,
    value: Any,
    translate: Callable[[str], str] = _same,
    number_format: NumberFormat = ENGLISH,
) -> str:
    """A stored value as one line for people to read back (the summary of the last page), its
    words in the language of ``translate``, its numbers as ``number_format`` writes them."""
    if value is None:
        return ""
    if field.type == "checkbox":
        return translate(
            pgettext("webform rule", "Yes") if value else pgettext("webform rule", "No")
        )
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
        return translate(pgettext("webform rule", "An image"))
    if field.type == "ssn":  # never the whole number on a page a shared screen may show
        return f"•••-••-{str(value)[-4:]}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if field.type == "dollar":
            return written_money(value, number_format)
        if field.type == "percent":
            return number_format.percent.format(written_number(value, number_format))
        if field.type in ("number", "integer"):
            return written_number(value, number_format)
    if field.type == "percent":
        return f"{value}%"
    if isinstance(value, list):
        return " / ".join(str(v) for v in value)
    return str(value)


def _item_answers(
    item: Item, value: Any, translate: Callable[[str], str], number_format: NumberFormat
) -> list[tuple[str, str]]:
    if isinstance(item, FieldDef):
        return [(item.label, answer_text(item, value, translate, number_format))]
    # One line per entry: "Items, entry 2", "Description: Lamp · Price: $12.00".
    title = translate(pgettext("webform rule", "{group}, entry {number}"))
    return [
        (
            title.format(group=_isolated(item.label), number=number),
            " · ".join(
                f"{_isolated(f.label)}: "
                f"{_isolated(answer_text(f, entry[f.key], translate, number_format))}"
                for f in item.fields
                if entry.get(f.key) is not None
            ),
        )
        for number, entry in enumerate(value, start=1)
    ]


def answers(
    definition: WorkflowDef,
    payloads: Mapping[str, Mapping[str, Any]],
    translate: Callable[[str], str] = _same,
    number_format: NumberFormat = ENGLISH,
) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each webform's name and its answers given, ``(label, text)``, in the webforms' order
    (a repeating group gives a line per entry), numbers as ``number_format`` writes them."""
    out = []
    for webform in definition.webforms:
        payload = payloads.get(webform.slug) or {}
        given = [
            answer
            for item in webform.items
            if payload.get(item.key) is not None
            for answer in _item_answers(item, payload[item.key], translate, number_format)
        ]
        if given:
            out.append((webform.name, given))
    return out
