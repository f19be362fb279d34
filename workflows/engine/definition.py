"""A workflow's definition: its webforms (ordered pages of fields), the documents it fills (each
a template whose aliases are mapped to webform fields) and its optional signing step.

The JSON form is what a published version stores, what ``workflow_export`` writes and
``workflow_import`` reads (see docs/workflows.md). ``parse_definition`` checks all of it and
reports every problem by path (``webforms.0.pages.1.fields.2.key``) before anything is built.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core.engine.field_types import FIELD_TYPES, PHONE_REGIONS
from core.engine.problems import InvalidInput, Problem
from workflows.engine.rules import EMPTY, FieldInvalid, check_value

FORMAT = "workflow/1"
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
SIGN_FIELD_TYPES = ("signature", "initial", "signatureDate")
SIGNER_TYPES = ("embedded", "email")
MAX_WEBFORMS = 20
MAX_PAGES = 50
MAX_FIELDS = 200


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
    # The key of an earlier field of the webform: this field is shown only when that one has a
    # value (``showWhen: {field, hasValue: true}``); hidden, it is not required and its value is
    # dropped (workflows.engine.resolve).
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
            out["showWhen"] = {"field": self.show_when, "hasValue": True}
        return out


@dataclass(frozen=True)
class PageDef:
    id: str
    title: str
    fields: tuple[FieldDef, ...]
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "title": self.title}
        if self.description:
            out["description"] = self.description
        out["fields"] = [f.to_json() for f in self.fields]
        return out


@dataclass(frozen=True)
class WebformDef:
    eid: str
    slug: str
    name: str
    pages: tuple[PageDef, ...]

    @property
    def fields(self) -> tuple[FieldDef, ...]:
        return tuple(field for page in self.pages for field in page.fields)

    def field(self, key: str) -> FieldDef | None:
        return next((f for f in self.fields if f.key == key), None)

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


# --- parsing --------------------------------------------------------------------------------


class DefinitionInvalid(InvalidInput):
    code = "workflow_definition_invalid"


def _text(raw: Mapping[str, Any], key: str, path: str, problems: list[Problem], *, limit: int,
          required: bool = True) -> str:  # fmt: skip
    value = raw.get(key)
    if value is None or value == "":
        if required:
            problems.append(Problem(f"{path}.{key}" if path else key, "Required"))
        return ""
    if not isinstance(value, str):
        problems.append(Problem(f"{path}.{key}" if path else key, "Must be a string."))
        return ""
    if len(value) > limit:
        problems.append(Problem(f"{path}.{key}" if path else key, f"At most {limit} characters."))
    return value.strip()[:limit]


def _list(raw: Any, path: str, problems: list[Problem], limit: int) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(Problem(path, "Must be a list."))
        return []
    if len(raw) > limit:
        problems.append(Problem(path, f"At most {limit} entries."))
    return raw[:limit]


def _number(raw: Any, path: str, problems: list[Problem]) -> float | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        problems.append(Problem(path, "Must be a number."))
        return None
    try:
        value = Decimal(str(raw))
    except ArithmeticError:
        problems.append(Problem(path, "Must be a number."))
        return None
    if not value.is_finite() or abs(value) >= Decimal(10) ** 15:
        problems.append(Problem(path, "Must be a finite number below 10^15."))
        return None
    return int(value) if value == value.to_integral_value() else float(value)


def _count(raw: Any, path: str, problems: list[Problem]) -> int | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0 or raw > 100_000:
        problems.append(Problem(path, "Must be a whole number from 0."))
        return None
    return raw


def parse_field(raw: Any, path: str, problems: list[Problem]) -> FieldDef | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    before = len(problems)
    key = _text(raw, "key", path, problems, limit=64)
    if key and not KEY.match(key):
        problems.append(
            Problem(f"{path}.key", "Use a letter, then letters, digits or _ (at most 64).")
        )
    kind = raw.get("type")
    if kind not in FIELD_TYPES:
        problems.append(Problem(f"{path}.type", f"Must be one of {', '.join(FIELD_TYPES)}."))
    label = _text(raw, "label", path, problems, limit=200)
    help_text = _text(raw, "helpText", path, problems, limit=1000, required=False)
    required = raw.get("required", False)
    if not isinstance(required, bool):
        problems.append(Problem(f"{path}.required", "Must be true or false."))
        required = False
    validation = raw.get("validation") or {}
    if not isinstance(validation, Mapping):
        problems.append(Problem(f"{path}.validation", "Must be an object."))
        validation = {}
    where = f"{path}.validation"
    min_value = _number(validation.get("min"), f"{where}.min", problems)
    max_value = _number(validation.get("max"), f"{where}.max", problems)
    min_length = _count(validation.get("minLength"), f"{where}.minLength", problems)
    max_length = _count(validation.get("maxLength"), f"{where}.maxLength", problems)
    if min_value is not None and max_value is not None and min_value > max_value:
        problems.append(Problem(f"{where}.max", "Must not be below the minimum."))
    if min_length is not None and max_length is not None and min_length > max_length:
        problems.append(Problem(f"{where}.maxLength", "Must not be below the minimum length."))
    options: list[tuple[str, str]] = []
    for index, option in enumerate(_list(raw.get("options"), f"{path}.options", problems, 100)):
        at = f"{path}.options.{index}"
        if not isinstance(option, Mapping):
            problems.append(Problem(at, "Must be {value, label}."))
            continue
        value = _text(option, "value", at, problems, limit=100)
        option_label = _text(option, "label", at, problems, limit=200, required=False)
        if value in {v for v, _ in options}:
            problems.append(Problem(f"{at}.value", f"Duplicate option {value!r}."))
        elif value:
            options.append((value, option_label or value))
    if kind == "radioGroup" and not options:
        problems.append(Problem(f"{path}.options", "A radio group needs options."))
    base_region = raw.get("baseRegion") or "US"
    if not isinstance(base_region, str) or base_region.upper() not in PHONE_REGIONS:
        problems.append(Problem(f"{path}.baseRegion", "Must be a region of +1, +44 or +52."))
        base_region = "US"
    show_when = _show_when(raw.get("showWhen"), f"{path}.showWhen", problems)
    if len(problems) > before:
        return None
    field = FieldDef(
        key=key,
        type=str(kind),
        label=label,
        required=required,
        help_text=help_text,
        min_value=min_value,
        max_value=max_value,
        min_length=min_length,
        max_length=max_length,
        options=tuple(options),
        base_region=base_region.upper(),
        show_when=show_when,
    )
    default = raw.get("default")
    if default is not None:
        try:
            # The default must itself be a valid value (required or not: it is optional here).
            normalized = check_value(_optional(field), default)
        except FieldInvalid as invalid:
            problems.append(Problem(f"{path}.default", str(invalid)))
            return None
        if normalized is not EMPTY:
            field = FieldDef(**{**field.__dict__, "default": normalized})
    return field


def _show_when(raw: Any, path: str, problems: list[Problem]) -> str:
    """The key a ``showWhen`` names ("" when there is none): ``{field: <key>, hasValue: true}``,
    the one condition there is (whether that key names an earlier field is checked by the
    webform)."""
    if raw is None:
        return ""
    if not isinstance(raw, Mapping) or raw.get("hasValue") is not True:
        problems.append(Problem(path, "Must be {field: <key>, hasValue: true}."))
        return ""
    key = raw.get("field")
    if not isinstance(key, str) or not KEY.match(key):
        problems.append(Problem(f"{path}.field", "Must be the key of an earlier field."))
        return ""
    return key


def _optional(field: FieldDef) -> FieldDef:
    return FieldDef(**{**field.__dict__, "required": False})


def _ref(raw: Any, path: str, problems: list[Problem]) -> FieldRef | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be {forge, field}."))
        return None
    forge = _text(raw, "forge", path, problems, limit=100)
    field = _text(raw, "field", path, problems, limit=64)
    return FieldRef(forge, field) if forge and field else None


def _webform(raw: Any, path: str, problems: list[Problem]) -> WebformDef | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    slug = _text(raw, "slug", path, problems, limit=100)
    if slug and not SLUG.match(slug):
        problems.append(Problem(f"{path}.slug", "Use lowercase letters, digits and dashes."))
    name = _text(raw, "name", path, problems, limit=200)
    eid = _text(raw, "eid", path, problems, limit=40, required=False)
    pages: list[PageDef] = []
    keys: set[str] = set()
    raw_pages = _list(raw.get("pages"), f"{path}.pages", problems, MAX_PAGES)
    if not raw_pages:
        problems.append(Problem(f"{path}.pages", "A webform needs at least one page."))
    total = 0
    for index, raw_page in enumerate(raw_pages):
        at = f"{path}.pages.{index}"
        if not isinstance(raw_page, Mapping):
            problems.append(Problem(at, "Must be an object."))
            continue
        title = _text(raw_page, "title", at, problems, limit=200)
        description = _text(raw_page, "description", at, problems, limit=2000, required=False)
        page_id = _text(raw_page, "id", at, problems, limit=40, required=False)
        raw_fields = _list(raw_page.get("fields"), f"{at}.fields", problems, MAX_FIELDS)
        if not raw_fields:
            problems.append(Problem(f"{at}.fields", "A page needs at least one field."))
        fields = []
        for n, raw_field in enumerate(raw_fields):
            field = parse_field(raw_field, f"{at}.fields.{n}", problems)
            if field is None:
                continue
            if field.key in keys:
                problems.append(
                    Problem(f"{at}.fields.{n}.key", f"Another field has the key {field.key!r}.")
                )
            if field.show_when and field.show_when not in keys:
                problems.append(
                    Problem(
                        f"{at}.fields.{n}.showWhen.field",
                        f"No earlier field has the key {field.show_when!r}.",
                    )
                )
            keys.add(field.key)
            fields.append(field)
        total += len(fields)
        pages.append(
            PageDef(
                id=page_id or f"page{index + 1}",
                title=title,
                fields=tuple(fields),
                description=description,
            )
        )
    if total > MAX_FIELDS:
        problems.append(Problem(f"{path}.pages", f"At most {MAX_FIELDS} fields in a webform."))
    return WebformDef(eid=eid, slug=slug, name=name, pages=tuple(pages))


def _document(raw: Any, path: str, problems: list[Problem]) -> DocumentDef | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    template = raw.get("template")
    if not isinstance(template, Mapping):
        problems.append(Problem(f"{path}.template", "Must be {eid, title}."))
        template = {}
    template_eid = _text(template, "eid", f"{path}.template", problems, limit=40)
    template_title = _text(template, "title", f"{path}.template", problems, limit=255,
                           required=False)  # fmt: skip
    title = _text(raw, "title", path, problems, limit=255, required=False)
    filename = _text(raw, "filename", path, problems, limit=255, required=False)
    mappings: list[MappingDef] = []
    aliases: set[str] = set()
    for index, item in enumerate(_list(raw.get("mappings"), f"{path}.mappings", problems, 500)):
        at = f"{path}.mappings.{index}"
        if not isinstance(item, Mapping):
            problems.append(Problem(at, "Must be {alias, forge, field}."))
            continue
        alias = _text(item, "alias", at, problems, limit=200)
        ref = _ref(item, at, problems)
        if alias in aliases:
            problems.append(Problem(f"{at}.alias", f"The alias {alias!r} is mapped twice."))
        aliases.add(alias)
        if alias and ref:
            mappings.append(MappingDef(alias=alias, source=ref))
    title = title or template_title or "Document"
    filename = filename or f"{title}.pdf"
    if not filename.lower().endswith(".pdf"):
        filename += ".pdf"
    return DocumentDef(
        template_eid=template_eid,
        template_title=template_title,
        title=title,
        filename=filename,
        mappings=tuple(mappings),
    )


def _box(raw: Any, path: str, problems: list[Problem]) -> SignBoxDef | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    box_id = _text(raw, "id", path, problems, limit=100)
    kind = raw.get("type", "signature")
    if kind not in SIGN_FIELD_TYPES:
        problems.append(Problem(f"{path}.type", f"Must be one of {', '.join(SIGN_FIELD_TYPES)}."))
    document, page = raw.get("document", 0), raw.get("page", 0)
    for name, value in (("document", document), ("page", page)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            problems.append(Problem(f"{path}.{name}", "Must be an index from 0."))
    rect = raw.get("rect")
    given = (
        [rect.get(k) for k in ("x", "y", "width", "height")] if isinstance(rect, Mapping) else []
    )
    numbers = [float(v) for v in given if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) != 4:
        problems.append(Problem(f"{path}.rect", "Must be {x, y, width, height} in points."))
        return None
    if numbers[2] <= 0 or numbers[3] <= 0:
        problems.append(Problem(f"{path}.rect", "Width and height must be positive."))
        return None
    if not box_id or kind not in SIGN_FIELD_TYPES or not isinstance(document, int):
        return None
    return SignBoxDef(
        id=box_id,
        type=str(kind),
        document=document,
        page=page if isinstance(page, int) else 0,
        rect=(numbers[0], numbers[1], numbers[2], numbers[3]),
    )


def parse_sign_boxes(
    raw: Any, path: str = "fields"
) -> tuple[tuple[SignBoxDef, ...], list[Problem]]:
    """A signer's boxes (``[{id, type, document, page, rect}]``) and the problems found."""
    problems: list[Problem] = []
    boxes = tuple(
        box
        for n, item in enumerate(_list(raw, path, problems, 50))
        if (box := _box(item, f"{path}.{n}", problems))
    )
    return boxes, problems


def _signer(raw: Any, index: int, problems: list[Problem]) -> SignerDef | None:
    path = f"signers.{index}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    signer_id = _text(raw, "id", path, problems, limit=100, required=False) or f"signer{index + 1}"
    name_field = _ref(raw.get("nameField"), f"{path}.nameField", problems)
    email_field = (
        _ref(raw.get("emailField"), f"{path}.emailField", problems)
        if raw.get("emailField") is not None
        else None
    )
    signer_type = raw.get("signerType") or "embedded"
    if signer_type not in SIGNER_TYPES:
        problems.append(Problem(f"{path}.signerType", "Must be embedded or email."))
    order = raw.get("routingOrder", 1)
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        problems.append(Problem(f"{path}.routingOrder", "Must be a whole number from 1."))
        order = 1
    boxes = [
        box
        for n, raw_box in enumerate(_list(raw.get("fields"), f"{path}.fields", problems, 50))
        if (box := _box(raw_box, f"{path}.fields.{n}", problems))
    ]
    if not boxes:
        problems.append(Problem(f"{path}.fields", "A signer needs at least one box to sign."))
    if name_field is None:
        return None
    return SignerDef(
        id=signer_id,
        name_field=name_field,
        email_field=email_field,
        signer_type=str(signer_type),
        routing_order=order,
        boxes=tuple(boxes),
    )


def _cross_check(definition: WorkflowDef, problems: list[Problem]) -> None:
    slugs = [w.slug for w in definition.webforms]
    for index, slug in enumerate(slugs):
        if slug and slugs.index(slug) != index:
            problems.append(Problem(f"webforms.{index}.slug", f"Another webform is {slug!r}."))
    # A field refused above is missing from the definition: references to it are not reported
    # again, as if the field did not exist.
    fields_ok = not any(p.path.startswith("webforms.") for p in problems)
    for d, document in enumerate(definition.documents):
        for m, mapping in enumerate(document.mappings):
            if fields_ok and definition.resolve(mapping.source) is None:
                problems.append(
                    Problem(
                        f"documents.{d}.mappings.{m}",
                        f"No field {mapping.source.field!r} in webform {mapping.source.forge!r}.",
                    )
                )
    ids = [s.id for s in definition.signers]
    for index, signer in enumerate(definition.signers):
        path = f"signers.{index}"
        if ids.index(signer.id) != index:
            problems.append(Problem(f"{path}.id", f"Another signer is {signer.id!r}."))
        name = definition.resolve(signer.name_field)
        if (name is None and fields_ok) or (name and name.type not in ("fullName", "shortText")):
            problems.append(Problem(f"{path}.nameField", "Must name a full name or text field."))
        email = definition.resolve(signer.email_field) if signer.email_field else None
        if signer.email_field and (
            (email is None and fields_ok) or (email and email.type != "email")
        ):
            problems.append(Problem(f"{path}.emailField", "Must name an email field."))
        if signer.signer_type == "email" and signer.email_field is None:
            problems.append(Problem(f"{path}.emailField", "An email signer needs an email field."))
        for n, box in enumerate(signer.boxes):
            if box.document >= len(definition.documents):
                problems.append(Problem(f"{path}.fields.{n}.document", "No such document."))
    if definition.signers and not definition.documents:
        problems.append(Problem("signers", "A signing step needs documents to sign."))
    box_ids = [box.id for s in definition.signers for box in s.boxes]
    if len(set(box_ids)) != len(box_ids):
        problems.append(Problem("signers", "Every signing box needs an id of its own."))


def parse_definition(raw: Any) -> WorkflowDef:
    """The definition in ``raw`` (its JSON form), checked; DefinitionInvalid lists every
    problem. Template eids are not looked up here: the service does that."""
    problems: list[Problem] = []
    if not isinstance(raw, Mapping):
        raise DefinitionInvalid([Problem("", "A workflow definition is a JSON object.")])
    declared = raw.get("format", FORMAT)
    if declared != FORMAT:
        problems.append(Problem("format", f"Must be {FORMAT!r}."))
    slug = _text(raw, "slug", "", problems, limit=100)
    if slug and not SLUG.match(slug):
        problems.append(Problem("slug", "Use lowercase letters, digits and dashes."))
    name = _text(raw, "name", "", problems, limit=200)
    raw_webforms = _list(raw.get("webforms"), "webforms", problems, MAX_WEBFORMS)
    if not raw_webforms:
        problems.append(Problem("webforms", "A workflow needs at least one webform."))
    webforms = [
        w for i, item in enumerate(raw_webforms) if (w := _webform(item, f"webforms.{i}", problems))
    ]
    documents = [
        d
        for i, item in enumerate(_list(raw.get("documents"), "documents", problems, 20))
        if (d := _document(item, f"documents.{i}", problems))
    ]
    signers = [
        s
        for i, item in enumerate(_list(raw.get("signers"), "signers", problems, 20))
        if (s := _signer(item, i, problems))
    ]
    definition = WorkflowDef(
        slug=slug,
        name=name,
        webforms=tuple(webforms),
        documents=tuple(documents),
        signers=tuple(signers),
    )
    _cross_check(definition, problems)
    if problems:
        raise DefinitionInvalid(problems)
    return definition


# --- mapping --------------------------------------------------------------------------------

_TEXT_TARGETS = frozenset({"shortText", "longText", "textWrap", "charList"})
_TEXT_SOURCES = frozenset(
    {"shortText", "longText", "textWrap", "charList", "email", "ssn", "ein", "date"}
    | {"radioGroup", "number", "dollar", "integer"}
)
_NUMBER_TARGETS = frozenset({"number", "dollar", "integer"})


def compatible(source: str, target: str) -> bool:
    """Whether a webform field of type ``source`` may fill a template field of type ``target``:
    the same type; any plain value into text; numbers into numbers (a percent only from a
    percent); short text into an email field."""
    if source == target:
        return True
    if target in _TEXT_TARGETS:
        return source in _TEXT_SOURCES
    if target in _NUMBER_TARGETS:
        return source in _NUMBER_TARGETS or source == "percent"
    return target == "email" and source == "shortText"
