"""Workflows: reading them, their definition, the templates they fill, publishing, and JSON
export and import. What people submit is in ``workflows.submissions.save``.

The working version of a workflow is its rows (webforms, pages, fields, groups, documents,
mappings, signers); ``definition_of`` (workflows.definitions.rows) reads them into one
``WorkflowDef``. Which field fills which template field is in workflows.definitions.mapping. A
published version stores that definition's JSON. Submissions use the latest published version;
the API may also run a workflow never published, on its working version, as template fills do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max, QuerySet
from django.urls import reverse
from django.utils import timezone

from accounts.models import Organization
from core.engine.problems import EngineError
from core.errors import NotFound, ValidationFailed, raise_for_engine_error
from core.lookups import get_by_eid, get_or_not_found
from templates_app.models import PdfTemplate
from workflows.definitions.mapping import template_problems
from workflows.definitions.rows import definition_of, replace_rows
from workflows.engine.definition import WorkflowDef, parse_definition
from workflows.models import Webform, Workflow, WorkflowVersion

# --- reading ------------------------------------------------------------------------------------


def workflow_list(*, organization: Organization) -> QuerySet[Workflow]:
    return Workflow.objects.filter(organization=organization).order_by("name", "id")


def workflow_get(*, organization: Organization, eid: str) -> Workflow:
    """The organization's workflow; another organization's is as absent as a missing one."""
    return get_by_eid(
        Workflow.objects.select_related("organization"), "workflow", eid, organization=organization
    )


def workflow_by_slug(*, organization: Organization, slug: str) -> Workflow:
    return get_or_not_found(
        Workflow.objects.select_related("organization"),
        f"No workflow with slug '{slug}'.",
        organization=organization,
        slug=slug,
    )


def webform_get(*, organization: Organization, eid: str) -> Webform:
    return get_by_eid(
        Webform.objects.select_related("workflow__organization"),
        "webform",
        eid,
        workflow__organization=organization,
    )


def start_url(workflow: Workflow) -> str:
    """The public address of the workflow's first webform page."""
    path = reverse("workflows-start", args=[workflow.organization.slug, workflow.slug])
    return settings.PUBLIC_BASE_URL + path


# --- the definition -----------------------------------------------------------------------------


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
        return Running(parse_definition(latest.definition, kept=True), latest.number)
    if published_only:
        raise NotFound(f"The workflow '{workflow.slug}' is not published.")
    return Running(checked_definition(workflow), None)


# --- checking against the templates -------------------------------------------------------------


def checked_definition(workflow: Workflow) -> WorkflowDef:
    """The working version, checked as publishing checks it (ValidationFailed if it is not
    complete and consistent)."""
    return _check(workflow.organization, definition_of(workflow).to_json())


def _check(organization: Organization, raw: Any) -> WorkflowDef:
    try:
        definition = parse_definition(raw)
    except EngineError as error:
        raise_for_engine_error(error)
    problems, _ = template_problems(organization, definition)
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
    replace_rows(workflow, definition)
    if publish:
        workflow_publish(workflow=workflow)
    return workflow, created


# --- mapping (admin) ----------------------------------------------------------------------------
