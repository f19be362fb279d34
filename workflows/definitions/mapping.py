"""Which webform field fills which field of a document's template: the template's aliases (its
arrays included), the checks of a definition's mappings against them, and the admin's mapping
page (its choices, and setting a document's mapping)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from accounts.models import Organization
from core.engine.problems import Problem
from core.errors import ValidationFailed
from templates_app.models import PdfTemplate
from templates_app.services import template_version_select, version_spec
from workflows.engine.definition import WorkflowDef, compatible
from workflows.models import FieldMapping, WebformField, Workflow, WorkflowDocument


@dataclass(frozen=True)
class TemplateAlias:
    """A key of a template's ``data`` that a webform field can fill."""

    alias: str
    type: str
    label: str
    options: tuple[str, ...] = ()
    # An array of the template (a column of rows): filled by a field of a repeating group, one
    # row per entry; the rows it has (more entries repeat its page).
    array: bool = False
    rows: int = 0


def template_aliases(template: PdfTemplate) -> list[TemplateAlias]:
    """The aliases of the template's default version a field can fill, in page order, then
    its arrays.

    Fields that share an alias are filled by one value (one entry). An array's alias is filled
    by a column of values: by a field of a repeating group, never by one of one value.
    """
    spec = version_spec(template_version_select(template=template, version_number=None))
    in_arrays = {field_id for array in spec.arrays for field_id in array.field_ids}
    by_id = {field.id: field for field in spec.fields}
    seen: dict[str, TemplateAlias] = {}
    for field in spec.fields:
        if field.id in in_arrays or field.alias in seen or field.is_signer:
            continue
        seen[field.alias] = TemplateAlias(
            alias=field.alias,
            type=field.type,
            label=field.label or field.alias,
            options=tuple(option.id for option in field.options),
        )
    for array in spec.arrays:
        first = by_id[array.field_ids[0]]
        seen.setdefault(
            array.alias,
            TemplateAlias(
                alias=array.alias,
                type=first.type,
                label=f"{array.alias} (array of {len(array.field_ids)} rows)",
                options=tuple(option.id for option in first.options),
                array=True,
                rows=len(array.field_ids),
            ),
        )
    return list(seen.values())


def fits(source_type: str, grouped: bool, target: TemplateAlias) -> str:
    """Why a webform field (of ``source_type``, in a repeating group or not) cannot fill
    ``target``; "" when it can."""
    if grouped and not target.array:
        return "A field of a repeating group fills an array of the template (one row per entry)."
    if target.array and not grouped:
        return "An array of the template is filled by a field of a repeating group."
    if not compatible(source_type, target.type):
        return f"A {source_type} field cannot fill a {target.type} field."
    return ""


def template_problems(
    organization: Organization, definition: WorkflowDef
) -> tuple[list[Problem], dict[int, PdfTemplate]]:
    problems: list[Problem] = []
    templates: dict[int, PdfTemplate] = {}
    for index, document in enumerate(definition.documents):
        path = f"documents.{index}"
        template = PdfTemplate.objects.filter(
            organization=organization, eid=document.template_eid
        ).first()
        if template is None:
            problems.append(
                Problem(f"{path}.template", f"No template with eid {document.template_eid!r}.")
            )
            continue
        templates[index] = template
        aliases = {a.alias: a for a in template_aliases(template)}
        for m, mapping in enumerate(document.mappings):
            at = f"{path}.mappings.{m}"
            target = aliases.get(mapping.alias)
            source = definition.resolve(mapping.source)
            grouped = definition.group_of(mapping.source) is not None
            if target is None:
                problems.append(
                    Problem(f"{at}.alias", f"The template has no field {mapping.alias!r}.")
                )
            elif source is not None and (why := fits(source.type, grouped, target)):
                problems.append(Problem(at, why))
            elif source is not None and source.type == "radioGroup":
                unknown = [v for v, _ in source.options if v not in target.options]
                if unknown:
                    problems.append(
                        Problem(
                            at,
                            f"The template's {mapping.alias!r} has no option "
                            + ", ".join(repr(v) for v in unknown)
                            + ".",
                        )
                    )
        pages = len(
            version_spec(template_version_select(template=template, version_number=None)).pages
        )
        for s, signer in enumerate(definition.signers):
            for n, box in enumerate(signer.boxes):
                if box.document == index and box.page >= pages:
                    problems.append(
                        Problem(f"signers.{s}.fields.{n}.page", f"The document has {pages} pages.")
                    )
    return problems, templates


# --- the admin's mapping page --------------------------------------------------------------


def workflow_fields(workflow: Workflow) -> list[WebformField]:
    """Every field of the workflow's webforms, in the order people fill them."""
    return list(
        WebformField.objects.filter(webform__workflow=workflow)
        .select_related("webform", "page")
        .order_by("webform__position", "webform_id", "page__position", "page_id", "position", "id")
    )


def mapping_choices(
    document: WorkflowDocument, fields: Iterable[WebformField]
) -> list[tuple[TemplateAlias, list[WebformField]]]:
    """Each alias of the document's template with the webform fields that may fill it."""
    fields = list(fields)
    return [
        (alias, [f for f in fields if not fits(f.type, f.group_id is not None, alias)])
        for alias in template_aliases(document.template)
    ]


@transaction.atomic
def document_mappings_set(
    *, document: WorkflowDocument, chosen: Mapping[str, WebformField | None]
) -> int:
    """Replace the document's mapping: alias -> field (None: not filled). Returns how many
    aliases are mapped. A field of another workflow, or of a type that cannot fill the alias,
    is refused."""
    aliases = {a.alias: a for a in template_aliases(document.template)}
    problems = []
    for alias, field in chosen.items():
        if field is None:
            continue
        target = aliases.get(alias)
        if target is None:
            problems.append(Problem(alias, "The template has no such field."))
        elif field.webform.workflow_id != document.workflow_id:
            problems.append(Problem(alias, "The field is not one of this workflow's."))
        elif why := fits(field.type, field.group_id is not None, target):
            problems.append(Problem(alias, why))
    if problems:
        raise ValidationFailed.from_problems(problems)
    document.mappings.all().delete()
    rows = [
        FieldMapping(document=document, alias=alias, field=field)
        for alias, field in chosen.items()
        if field is not None
    ]
    FieldMapping.objects.bulk_create(rows)
    Workflow.objects.filter(pk=document.workflow_id).update(updated_at=timezone.now())
    return len(rows)
