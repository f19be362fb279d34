"""GraphQL: the ``cast`` query (a PDF template on the wire), its type, and the ``casts`` field
this app adds to the wire type ``Organization`` (composed in ``config/schema.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import graphene

from accounts.identity import identity_of
from accounts.models import Organization
from core.engine.template_spec import TemplateSpec
from core.graphql.fields import at_path
from core.graphql.scalars import JSON, DateTime
from templates_app import services
from templates_app.engine.describe import example_data, field_info
from templates_app.models import PdfTemplate, TemplateVersion


@dataclass(frozen=True)
class CastView:
    template: PdfTemplate
    version: TemplateVersion

    # Several fields of one cast need these: compute each once per cast.
    @cached_property
    def summary(self) -> services.VersionSummary:
        return services.version_summary(self.template)

    @cached_property
    def spec(self) -> TemplateSpec:
        return services.version_spec(self.version)


class CastType(graphene.ObjectType):
    class Meta:
        name = "Cast"

    # Of the template, or of its versions' summary (CastView); the rest are resolved below.
    eid = graphene.String(required=True, resolver=at_path("template.eid"))
    title = graphene.String(resolver=at_path("template.title"))
    name = graphene.String(resolver=at_path("template.title"))
    is_template = graphene.Boolean(resolver=at_path("template.is_template"))
    version_number = graphene.Int(description="The number of the version returned.")
    published_number = graphene.Int(
        description="The latest published version, if any.",
        resolver=at_path("summary.published_number"),
    )
    latest_draft_version_number = graphene.Int(
        description="The number the working version would get if published now.",
        resolver=at_path("summary.latest_draft_version_number"),
    )
    has_unpublished_changes = graphene.Boolean(resolver=at_path("summary.has_unpublished_changes"))
    has_been_published = graphene.Boolean()
    published_at = DateTime(resolver=at_path("summary.published_at"))
    field_info = JSON(description="Fields, arrays, pages and style; see docs/templates.md.")
    example_data = JSON(description="A valid fill payload `data` for this version.")
    created_at = DateTime(resolver=at_path("template.created_at"))
    updated_at = DateTime(resolver=at_path("template.updated_at"))

    @staticmethod
    def resolve_version_number(view: CastView, info: Any) -> int:
        if view.version.number is not None:
            return view.version.number
        return view.summary.latest_draft_version_number

    @staticmethod
    def resolve_has_been_published(view: CastView, info: Any) -> bool:
        return view.summary.published_number is not None

    @staticmethod
    def resolve_field_info(view: CastView, info: Any) -> dict[str, Any]:
        return field_info(view.spec)

    @staticmethod
    def resolve_example_data(view: CastView, info: Any) -> dict[str, Any]:
        return example_data(view.spec)


def cast_views(organization: Organization, is_template: bool | None) -> list[CastView]:
    pairs = services.templates_with_default_versions(
        organization=organization, is_template=is_template
    )
    return [CastView(template, version) for template, version in pairs]


class OrganizationCasts(graphene.ObjectType):
    """``Organization.casts``: the organization's templates, each at its default version."""

    class Meta:
        abstract = True

    casts = graphene.List(graphene.NonNull(CastType), is_template=graphene.Boolean(), required=True)

    @staticmethod
    def resolve_casts(
        organization: Organization, info: Any, is_template: bool | None = None
    ) -> list[CastView]:
        return cast_views(organization, is_template)


class Query(graphene.ObjectType):
    cast = graphene.Field(
        CastType, eid=graphene.String(required=True), version_number=graphene.Int()
    )

    @staticmethod
    def resolve_cast(root: Any, info: Any, eid: str, version_number: int | None = None) -> CastView:
        organization = identity_of(info).organization
        template = services.template_get(organization=organization, eid=eid)
        version = services.template_version_select(template=template, version_number=version_number)
        return CastView(template, version)
