"""GraphQL of workflows, under the wire names: the ``weld`` and ``weldData`` queries, the
``welds`` field this app adds to ``Organization`` (composed in config/schema.py), and the
``forgeSubmit`` and ``removeWeldData`` mutations."""

from __future__ import annotations

from typing import Any

import graphene

from accounts.identity import ApiIdentity, identity_of
from accounts.models import Organization
from core.errors import NotFound, ValidationFailed
from core.graphql.fields import by_eid
from core.graphql.mutations import ServiceMutation
from core.graphql.resolvers import or_none
from core.graphql.scalars import JSON, DateTime
from esign.models import Signer
from esign.packets import signer_summary
from esign.schema import EtchSignerType
from workflows.definitions import versions
from workflows.definitions.rows import definition_of
from workflows.engine.resolve import resolved_payload
from workflows.models import Submission, Webform, WebformSubmission, Workflow
from workflows.submissions import links, save
from workflows.submissions.events import download_url
from workflows.submissions.finish import submission_sync
from workflows.submissions.reads import definition_for, submission_completion, submission_get


class ForgeType(graphene.ObjectType):
    class Meta:
        name = "Forge"

    id = graphene.ID(source="eid")
    eid = graphene.String(required=True)
    slug = graphene.String()
    name = graphene.String()
    title = graphene.String(source="name")
    pages = JSON(description="The working version's pages and fields; see docs/workflows.md.")

    @staticmethod
    def resolve_pages(webform: Webform, info: Any) -> list[dict[str, Any]]:
        definition = definition_of(webform.workflow)
        form = definition.webform(eid=webform.eid)
        return [page.to_json() for page in form.pages] if form else []


class WeldDataType(graphene.ObjectType):
    class Meta:
        name = "WeldData"

    id = graphene.ID(source="eid")
    eid = graphene.String(required=True)
    status = graphene.String()
    is_test = graphene.Boolean()
    is_complete = graphene.Boolean()
    display_title = graphene.String()
    completion_percentage = graphene.Float(description="From 0 to 100.")
    agents = JSON(description="The signers of the signing step, once it started.")
    webhook_url = graphene.String(name="webhookURL", resolver=or_none("webhook_url"))
    continue_url = graphene.String(name="continueURL")
    download_zip_url = graphene.String(name="downloadZipURL")
    version_number = graphene.Int()
    created_at = DateTime()
    updated_at = DateTime()
    completed_at = DateTime()
    weld = graphene.Field(lambda: WeldType, source="workflow")
    submissions = graphene.List(graphene.NonNull(lambda: SubmissionType))

    @staticmethod
    def resolve_completion_percentage(submission: Submission, info: Any) -> float:
        return submission_completion(submission)

    @staticmethod
    def resolve_agents(submission: Submission, info: Any) -> list[dict[str, Any]]:
        if submission.packet_id is None:
            return []
        signers = Signer.objects.filter(packet_id=submission.packet_id)
        return [signer_summary(signer) for signer in signers]

    @staticmethod
    def resolve_continue_url(submission: Submission, info: Any) -> str:
        return links.continue_url(submission)

    @staticmethod
    def resolve_download_zip_url(submission: Submission, info: Any) -> str | None:
        return download_url(submission) if submission.is_complete else None

    @staticmethod
    def resolve_submissions(submission: Submission, info: Any) -> list[WebformSubmission]:
        return list(submission.webform_submissions.all())


class SubmissionType(graphene.ObjectType):
    """What one person gave on one webform (``forgeSubmit``'s result)."""

    class Meta:
        name = "Submission"

    id = graphene.ID(source="eid")
    eid = graphene.String(required=True)
    status = graphene.String(description="in-progress or completed.")
    continue_url = graphene.String(name="continueURL")
    payload_value = JSON(description="The stored values, keyed by field key.")
    resolved_payload = JSON(description="Each value with its type and label, by field key.")
    current_step = graphene.Int()
    completed_at = DateTime()
    created_at = DateTime()
    updated_at = DateTime()
    forge = graphene.Field(ForgeType, source="webform")
    signer = graphene.Field(EtchSignerType)
    weld_data = graphene.Field(WeldDataType)

    @staticmethod
    def resolve_status(row: WebformSubmission, info: Any) -> str:
        return "completed" if row.completed_at else "in-progress"

    @staticmethod
    def resolve_continue_url(row: WebformSubmission, info: Any) -> str:
        return links.continue_url(row.submission)

    @staticmethod
    def resolve_payload_value(row: WebformSubmission, info: Any) -> dict[str, Any]:
        return dict(row.payload)

    @staticmethod
    def resolve_resolved_payload(row: WebformSubmission, info: Any) -> dict[str, Any]:
        webform = definition_for(row.submission).webform(eid=row.webform_eid)
        return resolved_payload(webform, row.payload) if webform else {}

    @staticmethod
    def resolve_signer(row: WebformSubmission, info: Any) -> Signer | None:
        """The signer whose name this webform gave, once the signing step started."""
        submission = row.submission
        if submission.packet_id is None:
            return None
        definition = definition_for(submission)
        aliases = [s.id for s in definition.signers if s.name_field.forge == row.webform_slug]
        return (
            Signer.objects.filter(packet_id=submission.packet_id, alias_id__in=aliases)
            .order_by("routing_order", "id")
            .first()
        )

    @staticmethod
    def resolve_weld_data(row: WebformSubmission, info: Any) -> Submission:
        return submission_sync(row.submission)


class WeldType(graphene.ObjectType):
    class Meta:
        name = "Weld"

    id = graphene.ID(source="eid")
    eid = graphene.String(required=True)
    slug = graphene.String()
    name = graphene.String()
    title = graphene.String(source="name")
    url = graphene.String(description="The public address of the first webform page.")
    published_number = graphene.Int()
    has_unpublished_changes = graphene.Boolean()
    created_at = DateTime()
    updated_at = DateTime()
    forges = graphene.List(graphene.NonNull(ForgeType))
    weld_datas = graphene.List(
        graphene.NonNull(WeldDataType), offset=graphene.Int(), limit=graphene.Int()
    )

    @staticmethod
    def resolve_url(workflow: Workflow, info: Any) -> str:
        return versions.start_url(workflow)

    @staticmethod
    def resolve_published_number(workflow: Workflow, info: Any) -> int | None:
        return versions.version_summary(workflow).published_number

    @staticmethod
    def resolve_has_unpublished_changes(workflow: Workflow, info: Any) -> bool:
        return versions.version_summary(workflow).has_unpublished_changes

    @staticmethod
    def resolve_forges(workflow: Workflow, info: Any) -> list[Webform]:
        return list(workflow.webforms.select_related("workflow").order_by("position", "id"))

    @staticmethod
    def resolve_weld_datas(
        workflow: Workflow, info: Any, offset: int | None = None, limit: int | None = None
    ) -> list[Submission]:
        start = max(offset or 0, 0)
        count = min(max(limit or 100, 0), 1000)
        rows = workflow.submissions.select_related("workflow__organization").prefetch_related(
            "webform_submissions"
        )[start : start + count]
        return [submission_sync(row) for row in rows]


class OrganizationWelds(graphene.ObjectType):
    """``Organization.welds``: the organization's workflows."""

    class Meta:
        abstract = True

    welds = graphene.List(graphene.NonNull(WeldType), required=True)

    @staticmethod
    def resolve_welds(organization: Any, info: Any) -> list[Workflow]:
        return list(versions.workflow_list(organization=organization))


def _weld_data_get(*, organization: Organization, eid: str) -> Submission:
    """The organization's submission, its state brought up to date (``weldData``)."""
    return submission_sync(submission_get(organization=organization, eid=eid))


class Query(graphene.ObjectType):
    weld = graphene.Field(
        WeldType,
        eid=graphene.String(),
        organization_slug=graphene.String(),
        slug=graphene.String(),
    )
    weld_data = by_eid(WeldDataType, _weld_data_get)

    @staticmethod
    def resolve_weld(
        root: Any,
        info: Any,
        eid: str | None = None,
        organization_slug: str | None = None,
        slug: str | None = None,
    ) -> Workflow:
        organization = identity_of(info).organization
        if eid:
            return versions.workflow_get(organization=organization, eid=eid)
        if not (organization_slug and slug):
            raise ValidationFailed.single("eid", "Give eid, or organizationSlug and slug.")
        if organization_slug != organization.slug:
            raise NotFound(f"No workflow with slug '{slug}'.")
        return versions.workflow_by_slug(organization=organization, slug=slug)


class ForgeSubmit(ServiceMutation):
    class Arguments:
        forge_eid = graphene.String(required=True)
        weld_data_eid = graphene.String()
        submission_eid = graphene.String()
        payload = JSON(required=True)
        enforce_payload_valid_on_create = graphene.Boolean()
        current_step = graphene.Int()
        complete = graphene.Boolean()
        is_test = graphene.Boolean()
        timezone = graphene.String()
        webhook_url = graphene.String(name="webhookURL")
        group_array_id = graphene.String()
        group_array_index = graphene.Int()
        error_type = graphene.String()

    Output = SubmissionType

    @classmethod
    def perform(cls, identity: ApiIdentity, **arguments: Any) -> WebformSubmission:
        submit = save.ForgeSubmitInput(**arguments)
        return save.forge_submit(identity=identity, submit=submit)


class RemoveWeldData(ServiceMutation):
    class Arguments:
        eid = graphene.String(required=True)

    Output = graphene.Boolean

    @classmethod
    def perform(cls, identity: ApiIdentity, *, eid: str) -> bool:
        return save.submission_remove(identity=identity, eid=eid)


class Mutation(graphene.ObjectType):
    forge_submit = ForgeSubmit.Field()
    remove_weld_data = RemoveWeldData.Field()
