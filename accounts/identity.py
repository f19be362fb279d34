"""Who is calling: the organization an API key belongs to, and the key itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from accounts.models import ApiKey, Organization, User

if TYPE_CHECKING:
    import graphene


@dataclass(frozen=True)
class ApiIdentity:
    """The authenticated caller. Every lookup on its behalf is scoped to ``organization``."""

    organization: Organization
    api_key: ApiKey

    # DRF and Django treat request.user as authenticated when this is true.
    is_authenticated = True
    is_anonymous = False

    @property
    def user(self) -> User | None:
        return self.api_key.user

    @property
    def is_development(self) -> bool:
        return self.api_key.kind == ApiKey.Kind.DEVELOPMENT


@dataclass(frozen=True)
class MemberIdentity:
    """A signed-in member in GraphiQL, running queries with their session as one of their
    organizations (``accounts.member_graphql``): no API key, and no mutations (those need a key).
    Looks like an ``ApiIdentity`` to the query resolvers."""

    organization: Organization
    member: User

    api_key = None
    is_authenticated = True
    is_anonymous = False
    is_development = True

    @property
    def user(self) -> User:
        return self.member


# Whoever a GraphQL resolver runs for: a key on /graphql, a signed-in member in GraphiQL. Both
# carry the ``organization`` every lookup is scoped to.
Identity: TypeAlias = ApiIdentity | MemberIdentity


def identity_of(info: graphene.ResolveInfo) -> Identity:
    """The authenticated caller of a resolver.

    The GraphQL views run behind authentication (an API key, or a member's session), so every
    resolver has one; ``core.graphql.views.GraphQLContext`` hands over ``request.user``. Mutations
    refuse a member (``accounts.member_graphql``), so ``ServiceMutation.perform`` always gets an
    ``ApiIdentity``.
    """
    identity: Identity = info.context.identity
    return identity
