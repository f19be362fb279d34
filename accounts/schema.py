"""GraphQL: currentUser and the organization it belongs to."""

from __future__ import annotations

from typing import Any

import graphene

from accounts.identity import ApiIdentity
from accounts.models import Membership, Organization


class OrganizationType(graphene.ObjectType):
    class Meta:
        name = "Organization"

    eid = graphene.String(required=True)
    name = graphene.String()
    slug = graphene.String()
    casts = graphene.List(
        graphene.NonNull("templates_app.schema.CastType"),
        is_template=graphene.Boolean(),
        required=True,
    )

    @staticmethod
    def resolve_casts(
        organization: Organization, info: Any, is_template: bool | None = None
    ) -> list:
        from templates_app.schema import cast_views  # the templates app builds on this one

        return cast_views(organization, is_template)


class UserType(graphene.ObjectType):
    """The member an API key acts for; a key with no member answers as the organization's API."""

    class Meta:
        name = "User"

    eid = graphene.String(required=True)
    name = graphene.String()
    email = graphene.String()
    role = graphene.String()
    organizations = graphene.List(graphene.NonNull(OrganizationType), required=True)


def current_user_of(identity: ApiIdentity) -> dict[str, Any]:
    organization: Organization = identity.organization
    user = identity.user
    if user is None:
        return {
            "eid": identity.api_key.eid,
            "name": f"{organization.name} API",
            "email": None,
            "role": "api",
            "organizations": [organization],
        }
    membership = Membership.objects.filter(user=user, organization=organization).first()
    return {
        "eid": user.eid,
        "name": user.display_name,
        "email": user.email or None,
        "role": membership.role if membership else "api",
        # A key is scoped to one organization: the others of the same user stay out of sight.
        "organizations": [organization],
    }


class Query(graphene.ObjectType):
    current_user = graphene.Field(UserType)

    @staticmethod
    def resolve_current_user(root: Any, info: graphene.ResolveInfo) -> dict[str, Any]:
        return current_user_of(info.context.identity)
