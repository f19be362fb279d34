"""Fields the apps' schemas build the same way: one that reads an attribute of something the
parent holds (``resolver=at_path("template.eid")``, where graphene's ``source=`` reads only the
parent's own), and a query of one row of the caller's organization by its eid (``by_eid``)."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

import graphene


def at_path(path: str) -> Callable[..., Any]:
    """Resolves to the parent's attribute at the dotted ``path`` ("event.action")."""
    read = attrgetter(path)

    def resolve(parent: Any, info: Any, **arguments: Any) -> Any:
        return read(parent)

    return resolve


def by_eid(output: Any, lookup: Callable[..., Any]) -> graphene.Field:
    """A query field ``(eid: String!)`` of one row of the caller's organization:
    ``lookup(organization=, eid=)``, the app's service, returns it or raises NotFound, for a row
    of another organization too.

    The caller is read untyped, as ``ServiceMutation`` reads it: core sits below accounts and
    cannot name its identities; every one carries the ``organization`` lookups are scoped to."""

    def resolve(root: Any, info: graphene.ResolveInfo, eid: str) -> Any:
        return lookup(organization=info.context.identity.organization, eid=eid)

    return graphene.Field(output, eid=graphene.String(required=True), resolver=resolve)
