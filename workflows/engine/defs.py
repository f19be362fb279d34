"""The shapes of a workflow definition: frozen dataclasses with their JSON form (``to_json``,
what a published version stores and ``workflow_export`` writes). They are made by the parser
(workflows.engine.definition.parse_definition) and by the service that reads a workflow's rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from workflows.engine.catalogue import FORMAT
from workflows.engine.conditions import condition_of


def show_when_json(text: str) -> dict[str, Any]:
    """The JSON of a condition kept as ``text`` (workflows.engine.conditions.condition_text)."""
    condition = condition_of(text)
    return condition.to_json() if condition else {}


@dataclass(frozen=True)
class FieldDef:
    key: str
    type: str
    label: str
    required: bool = False
    help_text: str = ""
    default: Any = None
    min_value: float | None = None
    max_value: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    options: tuple[tuple[str, str], ...] = ()  # (value, label) of a radioGroup
    base_region: str = "US"  # phone: numbers of this region are shown without country code
    # The condition on earlier fields that shows this field (``showWhen``; kept as
    # workflows.engine.conditions.condition_text: the key alone for "has a value"); hidden, it
    # is not required and its value is dropped (workflows.engine.resolve).
    show_when: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "type": self.type,
            "label": self.label,
            "required": self.required,
        }
        if self.help_text:
            out["helpText"] = self.help_text
        if self.default is not None:
            out["default"] = self.default
        validation: dict[str, Any] = {
            "min": self.min_value,
            "max": self.max_value,
            "minLength": self.min_length,
            "maxLength": self.max_length,
        }
        validation = {k: v for k, v in validation.items() if v is not None}
        if validation:
            out["validation"] = validation
        if self.options:
            out["options"] = [{"value": v, "label": label} for v, label in self.options]
        if self.type == "phone":
            out["baseRegion"] = self.base_region
        if self.show_when:
            out["showWhen"] = show_when_json(self.show_when)
        return out

    def within(self, prefix: str) -> FieldDef:
        """This field as an input of one entry of a repeating group: its key is prefixed
        (``items.0.price``), so a page's inputs, values and messages name the entry."""
        return FieldDef(**{**self.__dict__, "key": f"{prefix}{self.key}"})


@dataclass(frozen=True)
class GroupDef:
    """A repeating group: fields a person gives once per entry (``minEntries`` to
    ``maxEntries`` entries). Its value is a list of entries, each an object keyed by the
    fields' keys; ``groupArrayId`` (its key) and ``groupArrayIndex`` name one in forgeSubmit.
    Each field fills an array of a template, one row per entry."""

    key: str
    label: str
    fields: tuple[FieldDef, ...]
    min_entries: int = 0
    max_entries: int = 10
    help_text: str = ""

    def field(self, key: str) -> FieldDef | None:
        return next((f for f in self.fields if f.key == key), None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "label": self.label}
        if self.help_text:
            out["helpText"] = self.help_text
        out["minEntries"] = self.min_entries
        out["maxEntries"] = self.max_entries
        out["fields"] = [f.to_json() for f in self.fields]
        return out


@dataclass(frozen=True)
class PageDef:
    id: str
    title: str
    fields: tuple[FieldDef, ...]
    description: str = ""
    groups: tuple[GroupDef, ...] = ()
    # The key of a field of an earlier page: the page is shown only when that field has a value
    # (skipped in navigation, its fields hidden: not required, their values dropped).
    show_when: str = ""

    @property
    def items(self) -> tuple[FieldDef | GroupDef, ...]:
        """What holds a value on the page: its fields, then its groups."""
        return (*self.fields, *self.groups)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "title": self.title}
        if self.description:
            out["description"] = self.description
        if self.show_when:
            out["showWhen"] = show_when_json(self.show_when)
        out["fields"] = [f.to_json() for f in self.fields]
        if self.groups:
            out["groups"] = [g.to_json() for g in self.groups]
        return out


@dataclass(frozen=True)
class WebformDef:
    eid: str
    slug: str
    name: str
    pages: tuple[PageDef, ...]

    @property
    def fields(self) -> tuple[FieldDef, ...]:
        """The fields outside repeating groups, in page order (each holds one value)."""
        return tuple(field for page in self.pages for field in page.fields)

    @property
    def groups(self) -> tuple[GroupDef, ...]:
        return tuple(group for page in self.pages for group in page.groups)

    @property
    def items(self) -> tuple[FieldDef | GroupDef, ...]:
        """What holds a value of the payload, in page order: fields, then a page's groups."""
        return tuple(item for page in self.pages for item in page.items)

    def field(self, key: str) -> FieldDef | None:
        """A field by key, one of a repeating group's included."""
        found = next((f for f in self.fields if f.key == key), None)
        if found is None:
            found = next((f for g in self.groups for f in g.fields if f.key == key), None)
        return found

    def group(self, key: str) -> GroupDef | None:
        return next((g for g in self.groups if g.key == key), None)

    def group_of(self, field_key: str) -> GroupDef | None:
        """The repeating group a field belongs to (None: it holds one value)."""
        return next((g for g in self.groups if g.field(field_key) is not None), None)

    def page_of(self, key: str) -> int:
        """The index of the page holding the field or group ``key`` (-1: none)."""
        for index, page in enumerate(self.pages):
            if any(item.key == key for item in page.items):
                return index
        return -1

    def to_json(self) -> dict[str, Any]:
        return {
            "eid": self.eid,
            "slug": self.slug,
            "name": self.name,
            "pages": [page.to_json() for page in self.pages],
        }


@dataclass(frozen=True)
class FieldRef:
    """A field of one webform: ``forge`` is the webform's slug, ``field`` the field's key."""

    forge: str
    field: str

    def to_json(self) -> dict[str, str]:
        return {"forge": self.forge, "field": self.field}


@dataclass(frozen=True)
class MappingDef:
    alias: str
    source: FieldRef

    def to_json(self) -> dict[str, str]:
        return {"alias": self.alias, **self.source.to_json()}


@dataclass(frozen=True)
class DocumentDef:
    template_eid: str
    title: str
    filename: str
    mappings: tuple[MappingDef, ...] = ()
    template_title: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "template": {"eid": self.template_eid, "title": self.template_title},
            "title": self.title,
            "filename": self.filename,
            "mappings": [m.to_json() for m in self.mappings],
        }


@dataclass(frozen=True)
class SignBoxDef:
    """Where a signer signs: a box on a page of one of the documents (by index), in PDF points
    with the origin at the page's lower-left corner."""

    id: str
    type: str
    document: int
    page: int
    rect: tuple[float, float, float, float]  # x, y, width, height

    def to_json(self) -> dict[str, Any]:
        x, y, width, height = self.rect
        return {
            "id": self.id,
            "type": self.type,
            "document": self.document,
            "page": self.page,
            "rect": {"x": x, "y": y, "width": width, "height": height},
        }


@dataclass(frozen=True)
class SignerDef:
    id: str
    name_field: FieldRef
    email_field: FieldRef | None
    signer_type: str = "embedded"
    routing_order: int = 1
    boxes: tuple[SignBoxDef, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "nameField": self.name_field.to_json(),
            "emailField": self.email_field.to_json() if self.email_field else None,
            "signerType": self.signer_type,
            "routingOrder": self.routing_order,
            "fields": [box.to_json() for box in self.boxes],
        }


@dataclass(frozen=True)
class WorkflowDef:
    slug: str
    name: str
    webforms: tuple[WebformDef, ...]
    documents: tuple[DocumentDef, ...] = ()
    signers: tuple[SignerDef, ...] = ()

    def webform(self, *, eid: str | None = None, slug: str | None = None) -> WebformDef | None:
        for webform in self.webforms:
            if (eid is not None and webform.eid == eid) or (
                slug is not None and webform.slug == slug
            ):
                return webform
        return None

    def resolve(self, ref: FieldRef) -> FieldDef | None:
        webform = self.webform(slug=ref.forge)
        return webform.field(ref.field) if webform else None

    def group_of(self, ref: FieldRef) -> GroupDef | None:
        """The repeating group the field ``ref`` names belongs to (None: it holds one value, or
        the workflow has no such webform)."""
        webform = self.webform(slug=ref.forge)
        return webform.group_of(ref.field) if webform else None

    def steps(self) -> Iterator[tuple[WebformDef, int]]:
        """Every page of every webform, in the order a person fills them."""
        for webform in self.webforms:
            for index in range(len(webform.pages)):
                yield webform, index

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "slug": self.slug,
            "name": self.name,
            "webforms": [w.to_json() for w in self.webforms],
            "documents": [d.to_json() for d in self.documents],
            "signers": [s.to_json() for s in self.signers],
        }
