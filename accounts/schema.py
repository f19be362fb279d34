"""GraphQL: currentUser and the organization it belongs to.

``Organization`` and ``User`` go on the wire as types composed in ``config/schema.py``: other apps
add fields to the organization (templates_app its ``casts``), and only config sees every app. This
module gives their own fields and the ``currentUser`` resolver.
"""

from __future__ import annotations

from typing import Any

import graphene

from accounts.identity import Identity, MemberIdentity, identity_of
from accounts.models import Membership, Organization


class OrganizationFields(graphene.ObjectType):
    """The organization's own fields (``config.schema.Organization``)."""

    class Meta:
        abstract = True

    eid = graphene.String(required=True)
    name = graphene.String()
    slug = graphene.String()


class UserFields(graphene.ObjectType):
    """The user's own fields; ``config.schema.User`` adds ``organizations``."""

    class Meta:
        abstract = True

    eid = graphene.String(required=True)
    name = graphene.String()
    email = graphene.String()
    role = graphene.String()


def current_user_of(identity: Identity) -> dict[str, Any]:
    organization: Organization = identity.organization
    if isinstance(identity, MemberIdentity):
        user = identity.member
    elif identity.user is not None:
        user = identity.user
    else:  # an organization's own key, with no user behind it
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


def resolve_current_user(root: Any, info: graphene.ResolveInfo) -> dict[str, Any]:
    """``currentUser``: the User of the key that asks, its ``organizations`` as models."""
    return current_user_of(identity_of(info))
