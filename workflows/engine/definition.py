"""A workflow's definition: its webforms (ordered pages of fields and repeating groups), the
documents it fills (each a template whose aliases are mapped to webform fields) and its optional
signing step.

The JSON form is what a published version stores, what ``workflow_export`` writes and
``workflow_import`` reads (see docs/workflows.md). ``parse_definition`` checks all of it and
reports every problem by path (``webforms.0.pages.1.fields.2.key``) before anything is built.
The shapes are in workflows.engine.defs, what they may hold in workflows.engine.catalogue, the
webforms' parsing in workflows.engine.parse_webform; their names are importable from here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.engine.problems import InvalidInput, Problem
from workflows.engine.catalogue import (
    FORMAT,
    KEY,
    MAX_FIELDS,
    MAX_PAGES,
    MAX_WEBFORMS,
    SIGN_FIELD_TYPES,
    SIGNER_TYPES,
    SLUG,
    compatible,
)
from workflows.engine.defs import (
    DocumentDef,
    FieldDef,
    FieldRef,
    GroupDef,
    MappingDef,
    PageDef,
    SignBoxDef,
    SignerDef,
    WebformDef,
    WorkflowDef,
)
from workflows.engine.parse_webform import (
    parse_field,
    parse_webform,
    read_list,
    read_objects,
    read_text,
)

__all__ = [
    "FORMAT",
    "KEY",
    "MAX_FIELDS",
    "MAX_PAGES",
    "MAX_WEBFORMS",
    "SLUG",
    "DefinitionInvalid",
    "DocumentDef",
    "FieldDef",
    "FieldRef",
    "GroupDef",
    "MappingDef",
    "PageDef",
    "SignBoxDef",
    "SignerDef",
    "WebformDef",
    "WorkflowDef",
    "compatible",
    "parse_definition",
    "parse_field",
    "parse_sign_boxes",
]


class DefinitionInvalid(InvalidInput):
    code = "workflow_definition_invalid"


def parse_ref(raw: Any, path: str, problems: list[Problem]) -> FieldRef | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be {forge, field}."))
        return None
    forge = read_text(raw, "forge", path, problems, limit=100)
    field = read_text(raw, "field", path, problems, limit=64)
    return FieldRef(forge, field) if forge and field else None


def _document(raw: Any, path: str, problems: list[Problem]) -> DocumentDef | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    template = raw.get("template")
    if not isinstance(template, Mapping):
        problems.append(Problem(f"{path}.template", "Must be {eid, title}."))
        template = {}
    template_eid = read_text(template, "eid", f"{path}.template", problems, limit=40)
    template_title = read_text(template, "title", f"{path}.template", problems, limit=255,
                           required=False)  # fmt: skip
    title = read_text(raw, "title", path, problems, limit=255, required=False)
    filename = read_text(raw, "filename", path, problems, limit=255, required=False)
    mappings: list[MappingDef] = []
    aliases: set[str] = set()
    raw_mappings = raw.get("mappings")
    shape = "{alias, forge, field}"
    for at, item in read_objects(raw_mappings, f"{path}.mappings", problems, 500, shape):
        alias = read_text(item, "alias", at, problems, limit=200)
        ref = parse_ref(item, at, problems)
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
    box_id = read_text(raw, "id", path, problems, limit=100)
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
        for n, item in enumerate(read_list(raw, path, problems, 50))
        if (box := _box(item, f"{path}.{n}", problems))
    )
    return boxes, problems


def _signer(raw: Any, index: int, problems: list[Problem]) -> SignerDef | None:
    path = f"signers.{index}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    signer_id = (
        read_text(raw, "id", path, problems, limit=100, required=False) or f"signer{index + 1}"
    )
    name_field = parse_ref(raw.get("nameField"), f"{path}.nameField", problems)
    email_field = (
        parse_ref(raw.get("emailField"), f"{path}.emailField", problems)
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
        for n, raw_box in enumerate(read_list(raw.get("fields"), f"{path}.fields", problems, 50))
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


def _single(definition: WorkflowDef, ref: FieldRef) -> FieldDef | None:
    """The field ``ref`` names when it holds one value (a signer is one person: a field of a
    repeating group, one per entry, cannot name them)."""
    webform = definition.webform(slug=ref.forge)
    if webform is None or webform.group_of(ref.field) is not None:
        return None
    return webform.field(ref.field)


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
        name = _single(definition, signer.name_field)
        if (name is None and fields_ok) or (name and name.type not in ("fullName", "shortText")):
            problems.append(Problem(f"{path}.nameField", "Must name a full name or text field."))
        email = _single(definition, signer.email_field) if signer.email_field else None
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


def parse_definition(raw: Any, *, kept: bool = False) -> WorkflowDef:
    """The definition in ``raw`` (its JSON form), checked; DefinitionInvalid lists every
    problem. Template eids are not looked up here: the service does that. ``kept``: a
    definition read back from storage (a version, a submission's), not held to checks added
    since it was kept (parse_webform)."""
    problems: list[Problem] = []
    if not isinstance(raw, Mapping):
        raise DefinitionInvalid([Problem("", "A workflow definition is a JSON object.")])
    declared = raw.get("format", FORMAT)
    if declared != FORMAT:
        problems.append(Problem("format", f"Must be {FORMAT!r}."))
    slug = read_text(raw, "slug", "", problems, limit=100)
    if slug and not SLUG.match(slug):
        problems.append(Problem("slug", "Use lowercase letters, digits and dashes."))
    name = read_text(raw, "name", "", problems, limit=200)
    raw_webforms = read_list(raw.get("webforms"), "webforms", problems, MAX_WEBFORMS)
    if not raw_webforms:
        problems.append(Problem("webforms", "A workflow needs at least one webform."))
    webforms = [
        w
        for i, item in enumerate(raw_webforms)
        if (w := parse_webform(item, f"webforms.{i}", problems, kept=kept))
    ]
    documents = [
        d
        for i, item in enumerate(read_list(raw.get("documents"), "documents", problems, 20))
        if (d := _document(item, f"documents.{i}", problems))
    ]
    signers = [
        s
        for i, item in enumerate(read_list(raw.get("signers"), "signers", problems, 20))
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
