"""The fields and repeating groups of one webform page as its template draws them: each input's
string, and each message in the reader's language (the engine gives codes: workflows.engine
.messages; they are translated here)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext, pgettext

from workflows.engine.defs import FieldDef, GroupDef, WebformDef
from workflows.engine.entries import entry_strings
from workflows.engine.form_inputs import form_strings, invalid_parts
from workflows.engine.messages import RULE_CONTEXT, Message
from workflows.pages.numbers import page_number_format

# The index in the names of the blank entry a page's script copies to add an entry.
BLANK_INDEX = "__i__"


def rule_gettext(text: str) -> str:
    """A text of the engine (a rule's message, a region's name, a word of the summary) in the
    reader's language: its catalogue entries have a context of their own."""
    return pgettext(RULE_CONTEXT, text)


def isolated(text: str) -> str:
    """``text`` the author wrote, put into a sentence of the page: between FSI and PDI (HTML's
    <bdi> as characters), so "Do you have pets?" in an Arabic sentence keeps its "?" at its end."""
    return f"\u2068{text}\u2069" if text else text


def say(message: Message | None) -> str:
    """A message of the rules in the reader's language."""
    return message.text(rule_gettext) if message is not None else ""


class _Item:
    """What a field and a repeating group both take from their definition: its key, and the
    HTML id the page's template and script make of it."""

    definition: FieldDef | GroupDef

    @property
    def key(self) -> str:
        return self.definition.key

    @property
    def id(self) -> str:
        return f"f-{self.definition.key}"


@dataclass
class FieldView(_Item):
    """One field as the template draws it."""

    definition: FieldDef
    strings: dict[str, str]
    message: Message | None = None
    label: str = ""  # what the error summary calls it ("Items, entry 2: Price")
    text: str = ""  # a message of the page rather than of the rules (a post refused unread)

    @property
    def error(self) -> str:
        return self.text or say(self.message)

    @property
    def type(self) -> str:
        return self.definition.type

    @property
    def value(self) -> str:
        return self.strings.get(self.definition.key, "")

    def part(self, name: str) -> str:
        return self.strings.get(f"{self.definition.key}.{name}", "")

    @property
    def parts(self) -> dict[str, str]:
        prefix = f"{self.definition.key}."
        return {k[len(prefix) :]: v for k, v in self.strings.items() if k.startswith(prefix)}

    @property
    def checked(self) -> bool:
        return bool(self.strings.get(self.definition.key))

    @property
    def region(self) -> str:
        return self.part("region") or self.definition.base_region

    @property
    def invalid_parts(self) -> tuple[str, ...]:
        """The parts the error is about (the others, optional ones included, stay unmarked)."""
        code = self.message.code if self.message else ""
        return invalid_parts(self.definition, self.parts, code)

    @property
    def image(self) -> str:
        value = self.value
        return value if value.startswith("data:image/") else ""

    @property
    def summary_label(self) -> str:
        return self.label or self.definition.label


@dataclass
class EntryView:
    index: int
    fields: list[FieldView]

    @property
    def number(self) -> int:
        return self.index + 1


@dataclass
class GroupView(_Item):
    """A repeating group: its entries, the blank entry the script copies, and the message
    about the group as a whole (too few entries)."""

    definition: GroupDef
    entries: list[EntryView]
    blank: list[FieldView]
    message: Message | None = None
    summary: list[FieldView] = field(default_factory=list)

    @property
    def error(self) -> str:
        return say(self.message)

    @property
    def summary_label(self) -> str:
        return self.definition.label

    @property
    def full(self) -> bool:
        return len(self.entries) >= self.definition.max_entries


def field_views(
    webform: WebformDef,
    page_index: int,
    values: Mapping[str, Any],
    errors: Mapping[str, Message] | None = None,
    *,
    use_defaults: bool,
    drafts: Mapping[str, Mapping[str, str]] | None = None,
) -> list[FieldView]:
    """The page's fields with ``values``; a field with a draft (typed, then left by Back
    unchecked) shows it instead."""
    views = []
    for definition in webform.pages[page_index].fields:
        value = values.get(definition.key)
        if value is None and use_defaults:
            value = definition.default
        draft = (drafts or {}).get(definition.key)
        views.append(
            FieldView(
                definition=definition,
                strings=dict(draft)
                if draft is not None
                else form_strings(definition, value, page_number_format()),
                message=(errors or {}).get(definition.key),
            )
        )
    return views


def _entry_fields(
    group: GroupDef,
    index: int | str,
    strings: Mapping[str, str],
    errors: Mapping[str, Message],
    *,
    use_defaults: bool = False,
) -> list[FieldView]:
    prefix = f"{group.key}.{index}."
    views = []
    for member in group.fields:
        definition = member.within(prefix)
        own = {
            k: v
            for k, v in strings.items()
            if k == definition.key or k.startswith(f"{definition.key}.")
        }
        if not own and use_defaults and member.default is not None:
            own = form_strings(definition, member.default, page_number_format())
        label = gettext("%(group)s, entry %(number)s: %(field)s") % {
            "group": isolated(group.label),
            "number": index + 1 if isinstance(index, int) else "",
            "field": isolated(member.label),
        }
        views.append(FieldView(definition, own, errors.get(definition.key), label=label))
    return views


def group_views(
    webform: WebformDef,
    page_index: int,
    values: Mapping[str, Any],
    errors: Mapping[str, Message] | None = None,
    *,
    drafts: Mapping[str, Mapping[str, str]] | None = None,
) -> list[GroupView]:
    """The page's repeating groups with the entries of ``values`` (stored, or as posted), or of
    a draft Back kept; a group with fewer entries than its minimum shows blank ones."""
    errors = errors or {}
    views = []
    for group in webform.pages[page_index].groups:
        draft = (drafts or {}).get(group.key)
        if draft is not None:
            strings = dict(draft)
            try:
                count = int(strings.get(f"{group.key}.entries", "0"))
            except ValueError:
                count = 0
        else:
            entries = values.get(group.key)
            entries = entries if isinstance(entries, list) else []
            count = len(entries)
            strings = {}
            for index, entry in enumerate(entries):
                if isinstance(entry, Mapping):
                    strings.update(entry_strings(group, index, entry, page_number_format()))
        given = count
        count = min(max(count, group.min_entries), group.max_entries)
        entry_views = [
            EntryView(i, _entry_fields(group, i, strings, errors, use_defaults=i >= given))
            for i in range(count)
        ]
        blank = _entry_fields(group, BLANK_INDEX, {}, {}, use_defaults=True)
        view = GroupView(group, entry_views, blank, errors.get(group.key))
        view.summary = [f for entry in entry_views for f in entry.fields if f.message]
        views.append(view)
    return views


def group_strings(group: GroupDef, entries: Any) -> dict[str, str]:
    """A group's entries (as posted) as the strings of its inputs, and their count: what Back
    keeps of a group it could not check."""
    entries = entries if isinstance(entries, list) else []
    strings = {f"{group.key}.entries": str(len(entries))}
    for index, entry in enumerate(entries):
        if isinstance(entry, Mapping):
            strings.update(entry_strings(group, index, entry, page_number_format()))
    return strings
