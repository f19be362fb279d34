"""An organization's rows by their eid, the public key every door (GraphQL, REST, the MCP tools,
the admin's actions) is given: another organization's row is as absent as a missing one, so an
eid tells a caller nothing about organizations other than its own."""

from __future__ import annotations

from typing import TypeVar

from django.db.models import Model, QuerySet

from accounts.models import Organization
from core.lookups import get_or_not_found

M = TypeVar("M", bound=Model)


def owned_get(
    queryset: QuerySet[M],
    noun: str,
    organization: Organization,
    eid: str,
    *,
    through: str = "organization",
) -> M:
    """The row ``eid`` of ``queryset`` whose organization (the field path ``through``) is
    ``organization``, else NotFound "No <noun> with eid '<eid>'."."""
    return get_or_not_found(
        queryset, f"No {noun} with eid '{eid}'.", **{through: organization}, eid=eid
    )
