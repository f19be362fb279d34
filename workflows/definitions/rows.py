"""A workflow's working version is its rows (webforms, pages, fields, repeating groups,
documents, mappings, signers): ``definition_of`` reads them into one ``WorkflowDef`` and
``replace_rows`` writes a definition back as rows (an import)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.db.models import Prefetch

from templates_app.models import PdfTemplate
from workflows.engine.definition import (
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
from workflows.models import (
    FieldMapping,
    Webform,
    WebformField,
    WebformGroup,
    WebformPage,
    Workflow,
    WorkflowDocument,
    WorkflowSigner,
)


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


def _group_def(row: WebformGroup, fields: list[WebformField]) -> GroupDef:
    return GroupDef(
        key=row.key,
        label=row.label,
        help_text=row.help_text,
        min_entries=row.min_entries,
        max_entries=row.max_entries,
        fields=tuple(field_def(f) for f in fields),
    )


def _ref(row: WebformField) -> FieldRef:
    return FieldRef(forge=row.webform.slug, field=row.key)


def definition_of(workflow: Workflow) -> WorkflowDef:
    """The working version: the workflow's rows as one definition (a handful of queries)."""
    webforms = list(
        workflow.webforms.prefetch_related(
            Prefetch("pages", queryset=WebformPage.objects.order_by("position", "id")),
            Prefetch("fields", queryset=WebformField.objects.order_by("position", "id")),
            Prefetch("groups", queryset=WebformGroup.objects.order_by("position", "id")),
        ).order_by("position", "id")
    )
    forms = []
    for webform in webforms:
        fields = list(webform.fields.all())
        groups = list(webform.groups.all())
        pages = tuple(
            PageDef(
                id=page.eid,
                title=page.title,
                description=page.description,
                fields=tuple(
                    field_def(f) for f in fields if f.page_id == page.pk and f.group_id is None
                ),
                groups=tuple(
                    _group_def(g, [f for f in fields if f.group_id == g.pk])
                    for g in groups
                    if g.page_id == page.pk
                ),
                show_when=page.show_when,
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


def _field_rows(
    fields: dict[tuple[str, str], WebformField],
    slug: str,
    page_row: WebformPage,
    group_row: WebformGroup | None,
    field_defs: tuple[FieldDef, ...],
) -> None:
    """Write ``field_defs`` as the fields of ``page_row`` (of ``group_row`` when in a repeating
    group), each into ``fields`` under (the webform's slug, its key)."""
    for position, field in enumerate(field_defs):
        fields[(slug, field.key)] = WebformField.objects.create(
            webform=page_row.webform,
            page=page_row,
            group=group_row,
            position=position,
            **field_columns(field),
        )


def replace_rows(workflow: Workflow, definition: WorkflowDef) -> None:
    workflow.signers.all().delete()
    workflow.documents.all().delete()
    existing = {w.slug: w for w in workflow.webforms.all()}
    keep = {w.slug for w in definition.webforms}
    for slug, gone in existing.items():
        if slug not in keep:
            gone.delete()
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
                webform=webform, position=page_position, **page_columns(page)
            )
            _field_rows(fields, form.slug, page_row, None, page.fields)
            for group_position, group in enumerate(page.groups):
                group_row = WebformGroup.objects.create(
                    webform=webform, page=page_row, position=group_position, **group_columns(group)
                )
                _field_rows(fields, form.slug, page_row, group_row, group.fields)
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


def page_columns(page: PageDef) -> dict[str, Any]:
    """The columns of a WebformPage row for ``page`` (but its place)."""
    return {"title": page.title, "description": page.description, "show_when": page.show_when}


def group_columns(group: GroupDef) -> dict[str, Any]:
    """The columns of a WebformGroup row for ``group`` (but its place)."""
    return {
        "key": group.key,
        "label": group.label,
        "help_text": group.help_text,
        "min_entries": group.min_entries,
        "max_entries": group.max_entries,
    }


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
