"""Workflows: reading them, their definition, the templates they fill, publishing, and JSON
export and import. What people submit is in ``workflows.submissions``.

The working version of a workflow is its rows (webforms, pages, fields, documents, mappings,
signers); ``definition_of`` reads them into one ``WorkflowDef``. A published version stores that
definition's JSON. Submissions use the latest published version; the API may also run a
workflow never published, on its working version, as template fills do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Prefetch, QuerySet
from django.urls import reverse
from django.utils import timezone

from accounts.models import Organization
from core.engine.problems import EngineError, Problem
from core.errors import NotFound, ValidationFailed, raise_for_engine_error
from templates_app.models import PdfTemplate
from templates_app.services import template_version_select, version_spec
from workflows.engine.definition import (
    DocumentDef,
    FieldDef,
    FieldRef,
    MappingDef,
    PageDef,
    SignBoxDef,
    SignerDef,
    WebformDef,
    WorkflowDef,
    compatible,
    parse_definition,
)
from workflows.models import (
    FieldMapping,
    Webform,
    WebformField,
    WebformPage,
    Workflow,
    WorkflowDocument,
    WorkflowSigner,
    WorkflowVersion,
)

# --- reading ------------------------------------------------------------------------------------


def workflow_list(*, organization: Organization) -> QuerySet[Workflow]:
    return Workflow.objects.filter(organization=organization).order_by("name", "id")


def workflow_get(*, organization: Organization, eid: str) -> Workflow:
    """The organization's workflow; another organization's is as absent as a missing one."""
    try:
        return Workflow.objects.select_related("organization").get(
            organization=organization, eid=eid
        )
    except Workflow.DoesNotExist:
        raise NotFound(f"No workflow with eid '{eid}'.") from None


def workflow_by_slug(*, organization: Organization, slug: str) -> Workflow:
    try:
        return Workflow.objects.select_related("organization").get(
            organization=organization, slug=slug
        )
    except Workflow.DoesNotExist:
        raise NotFound(f"No workflow with slug '{slug}'.") from None


def webform_get(*, organization: Organization, eid: str) -> Webform:
    try:
        return Webform.objects.select_related("workflow__organization").get(
            workflow__organization=organization, eid=eid
        )
    except Webform.DoesNotExist:
        raise NotFound(f"No webform with eid '{eid}'.") from None


def start_url(workflow: Workflow) -> str:
    """The public address of the workflow's first webform page."""
    path = reverse("workflows-start", args=[workflow.organization.slug, workflow.slug])
    return settings.PUBLIC_BASE_URL + path


# --- the definition -----------------------------------------------------------------------------


def _number(value: Decimal | None) -> float | None:
    if value is None:
        return None
    return int(value) if value == value.to_integral_value() else float(value)


def field_def(row: WebformField) -> FieldDef:
    options = tuple(
        (str(o.get("value")), str(o.get("label") or o.get("value")))
        for o in row.options or []
        if isinstance(o, Mapping) and o.get("value")
    )
    return FieldDef(
        key=row.key,
        type=row.type,
        label=row.label,
        required=row.required,
        help_text=row.help_text,
        default=row.default,
        min_value=_number(row.min_value),
        max_value=_number(row.max_value),
        min_length=row.min_length,
        max_length=row.max_length,
        options=options,
        base_region=row.base_region or "US",
        show_when=row.show_when,
    )


def _ref(row: WebformField) -> FieldRef:
    return FieldRef(forge=row.webform.slug, field=row.key)


def definition_of(workflow: Workflow) -> WorkflowDef:
    """The working version: the workflow's rows as one definition (a handful of queries)."""
    webforms = list(
        workflow.webforms.prefetch_related(
            Prefetch("pages", queryset=WebformPage.objects.order_by("position", "id")),
            Prefetch("fields", queryset=WebformField.objects.order_by("position", "id")),
        ).order_by("position", "id")
    )
    forms = []
    for webform in webforms:
        fields = list(webform.fields.all())
        pages = tuple(
            PageDef(
                id=page.eid,
                title=page.title,
                description=page.description,
                fields=tuple(field_def(f) for f in fields if f.page_id == page.pk),
            )
            for page in webform.pages.all()
        )
        forms.append(WebformDef(eid=webform.eid, slug=webform.slug, name=webform.name, pages=pages))
    documents = list(
        workflow.documents.select_related("template")
        .prefetch_related("mappings__field__webform")
        .order_by("position", "id")
    )
    signers = []
    for signer in workflow.signers.select_related(
        "name_field__webform", "email_field__webform"
    ).order_by("routing_order", "id"):
        boxes = []
        for box in signer.boxes or []:
            rect = box.get("rect") or {}
            boxes.append(
                SignBoxDef(
                    id=str(box.get("id")),
                    type=str(box.get("type", "signature")),
                    document=int(box.get("document", 0)),
                    page=int(box.get("page", 0)),
                    rect=(
                        float(rect.get("x", 0)),
                        float(rect.get("y", 0)),
                        float(rect.get("width", 0)),
                        float(rect.get("height", 0)),
                    ),
                )
            )
        signers.append(
            SignerDef(
                id=signer.alias_id,
                name_field=_ref(signer.name_field),
                email_field=_ref(signer.email_field) if signer.email_field else None,
                signer_type=signer.signer_type,
                routing_order=signer.routing_order,
                boxes=tuple(boxes),
            )
        )
    return WorkflowDef(
        slug=workflow.slug,
        name=workflow.name,
        webforms=tuple(forms),
        documents=tuple(
            DocumentDef(
                template_eid=document.template.eid,
                template_title=document.template.title,
                title=document.title or document.template.title,
                filename=_filename(document.filename or document.title or document.template.title),
                mappings=tuple(
                    MappingDef(alias=m.alias, source=_ref(m.field))
                    for m in sorted(document.mappings.all(), key=lambda m: m.alias)
                ),
            )
            for document in documents
        ),
        signers=tuple(signers),
    )


def _filename(name: str) -> str:
    name = name.strip() or "document"
    return name if name.lower().endswith(".pdf") else f"{name}.pdf"


def latest_version(workflow: Workflow) -> WorkflowVersion | None:
    return workflow.versions.order_by("-number").first()


@dataclass(frozen=True)
class Running:
    """The definition submissions follow, and the published version it is (None: working)."""

    definition: WorkflowDef
    version_number: int | None


def running_definition(workflow: Workflow, *, published_only: bool) -> Running:
    """The latest published version; else, unless ``published_only``, the working version."""
    latest = latest_version(workflow)
    if latest is not None:
        return Running(parse_definition(latest.definition), latest.number)
    if published_only:
        raise NotFound(f"The workflow '{workflow.slug}' is not published.")
    return Running(checked_definition(workflow), None)


# --- checking against the templates -------------------------------------------------------------


@dataclass(frozen=True)
class TemplateAlias:
    """A key of a template's ``data`` that a webform field can fill."""

    alias: str
    type: str
    label: str
    options: tuple[str, ...] = ()


def template_aliases(template: PdfTemplate) -> list[TemplateAlias]:
    """The aliases of the template's default version a field can fill, in page order.

    Fields that share an alias are filled by one value (one entry). Array aliases are left out:
    a webform field holds one value, an array fills a column of them.
    """
    spec = version_spec(template_version_select(template=template, version_number=None))
    in_arrays = {field_id for array in spec.arrays for field_id in array.field_ids}
    seen: dict[str, TemplateAlias] = {}
    for field in spec.fields:
        if field.id in in_arrays or field.alias in seen:
            continue
        seen[field.alias] = TemplateAlias(
            alias=field.alias,
            type=field.type,
            label=field.label or field.alias,
            options=tuple(option.id for option in field.options),
        )
    return list(seen.values())


def _template_problems(
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
            if target is None:
                problems.append(
                    Problem(f"{at}.alias", f"The template has no field {mapping.alias!r}.")
                )
            elif source is not None and not compatible(source.type, target.type):
                problems.append(
                    Problem(at, f"A {source.type} field cannot fill a {target.type} field.")
                )
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


def checked_definition(workflow: Workflow) -> WorkflowDef:
    """The working version, checked as publishing checks it (ValidationFailed if it is not
    complete and consistent)."""
    return _check(workflow.organization, definition_of(workflow).to_json())


def _check(organization: Organization, raw: Any) -> WorkflowDef:
    try:
        definition = parse_definition(raw)
    except EngineError as error:
        raise_for_engine_error(error)
    problems, _ = _template_problems(organization, definition)
    if problems:
        raise ValidationFailed.from_problems(problems)
    return definition


# --- publishing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class VersionSummary:
    published_number: int | None
    has_unpublished_changes: bool


def version_summary(workflow: Workflow) -> VersionSummary:
    latest = latest_version(workflow)
    if latest is None:
        return VersionSummary(None, True)
    working = definition_of(workflow).to_json()
    return VersionSummary(latest.number, working != latest.definition)


@transaction.atomic
def workflow_publish(*, workflow: Workflow) -> WorkflowVersion:
    """Snapshot the working version as the next published number, after checking it whole."""
    locked = Workflow.objects.select_for_update().get(pk=workflow.pk)
    definition = checked_definition(locked)
    highest = locked.versions.aggregate(highest=Max("number"))["highest"] or 0
    version = WorkflowVersion.objects.create(
        workflow=locked,
        number=highest + 1,
        definition=definition.to_json(),
        published_at=timezone.now(),
    )
    locked.save(update_fields=["updated_at"])
    return version


# --- export and import --------------------------------------------------------------------------


def workflow_export(*, workflow: Workflow, version_number: int | None = None) -> dict[str, Any]:
    """The JSON form of the working version, or of published version ``version_number``."""
    if version_number is None:
        return definition_of(workflow).to_json()
    version = workflow.versions.filter(number=version_number).first()
    if version is None:
        raise NotFound(f"Workflow '{workflow.slug}' has no version {version_number}.")
    return dict(version.definition)


def _resolve_templates(organization: Organization, raw: Any) -> Any:
    """Documents name their template by eid; an export from another installation names
    templates this one does not have, so a template of the same title stands in for it."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("documents"), list):
        return raw
    documents = []
    for document in raw["documents"]:
        template = document.get("template") if isinstance(document, Mapping) else None
        if isinstance(template, Mapping):
            eid, title = template.get("eid"), template.get("title")
            exists = PdfTemplate.objects.filter(organization=organization, eid=eid).exists()
            if not exists and isinstance(title, str) and title:
                match = (
                    PdfTemplate.objects.filter(organization=organization, title=title)
                    .order_by("-updated_at")
                    .first()
                )
                if match is not None:
                    document = {**document, "template": {"eid": match.eid, "title": title}}
        documents.append(document)
    return {**raw, "documents": documents}


@transaction.atomic
def workflow_import(
    *, organization: Organization, data: Any, publish: bool = False
) -> tuple[Workflow, bool]:
    """Create the workflow of ``data`` (a definition's JSON), or replace the working version of
    the organization's workflow with the same slug. Webforms keep their eids when their slug is
    kept, so integrations that submit to them go on working. Returns (workflow, created).
    Any problem stores nothing."""
    definition = _check(organization, _resolve_templates(organization, data))
    workflow, created = Workflow.objects.select_for_update().get_or_create(
        organization=organization, slug=definition.slug, defaults={"name": definition.name}
    )
    workflow.name = definition.name
    workflow.save(update_fields=["name", "updated_at"])
    _replace_rows(workflow, definition)
    if publish:
        workflow_publish(workflow=workflow)
    return workflow, created


def _replace_rows(workflow: Workflow, definition: WorkflowDef) -> None:
    workflow.signers.all().delete()
    workflow.documents.all().delete()
    existing = {w.slug: w for w in workflow.webforms.all()}
    keep = {w.slug for w in definition.webforms}
    for slug, webform in existing.items():
        if slug not in keep:
            webform.delete()
    fields: dict[tuple[str, str], WebformField] = {}
    for position, form in enumerate(definition.webforms):
        webform = existing.get(form.slug)
        if webform is None:
            webform = Webform(workflow=workflow, slug=form.slug)
        webform.name, webform.position = form.name, position
        webform.save()
        webform.pages.all().delete()  # and their fields (and the mappings to them)
        for page_position, page in enumerate(form.pages):
            page_row = WebformPage.objects.create(
                webform=webform,
                title=page.title,
                description=page.description,
                position=page_position,
            )
            for field_position, field in enumerate(page.fields):
                fields[(form.slug, field.key)] = WebformField.objects.create(
                    webform=webform,
                    page=page_row,
                    position=field_position,
                    **field_columns(field),
                )
    for position, document in enumerate(definition.documents):
        row = WorkflowDocument.objects.create(
            workflow=workflow,
            template=PdfTemplate.objects.get(
                organization=workflow.organization, eid=document.template_eid
            ),
            title=document.title,
            filename=document.filename,
            position=position,
        )
        FieldMapping.objects.bulk_create(
            FieldMapping(
                document=row,
                alias=mapping.alias,
                field=fields[(mapping.source.forge, mapping.source.field)],
            )
            for mapping in document.mappings
        )
    for signer in definition.signers:
        WorkflowSigner.objects.create(
            workflow=workflow,
            alias_id=signer.id,
            name_field=fields[(signer.name_field.forge, signer.name_field.field)],
            email_field=(
                fields[(signer.email_field.forge, signer.email_field.field)]
                if signer.email_field
                else None
            ),
            signer_type=signer.signer_type,
            routing_order=signer.routing_order,
            boxes=[box.to_json() for box in signer.boxes],
        )


def field_columns(field: FieldDef) -> dict[str, Any]:
    """The columns of a WebformField row for ``field``."""
    return {
        "key": field.key,
        "type": field.type,
        "label": field.label,
        "required": field.required,
        "help_text": field.help_text,
        "default": field.default,
        "min_value": field.min_value,
        "max_value": field.max_value,
        "min_length": field.min_length,
        "max_length": field.max_length,
        "options": [{"value": v, "label": label} for v, label in field.options],
        "base_region": field.base_region,
        "show_when": field.show_when,
    }


# --- mapping (admin) ----------------------------------------------------------------------------


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
        (alias, [f for f in fields if compatible(f.type, alias.type)])
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
        elif not compatible(field.type, target.type):
            problems.append(Problem(alias, f"A {field.type} field cannot fill a {target.type}."))
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
