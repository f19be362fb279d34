"""Reading one row by its public key: a missing row is the API's NotFound.

The services scope the lookup to the caller's organization, so another organization's row is as
absent as a missing one.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Model, QuerySet

from core.errors import NotFound

M = TypeVar("M", bound=Model)


def get_or_not_found(queryset: QuerySet[M], missing: str, /, **lookup: Any) -> M:
    """The one row of ``queryset`` that ``lookup`` names, else NotFound with ``missing``."""
    try:
        return queryset.get(**lookup)
    except queryset.model.DoesNotExist:
        raise NotFound(missing) from None


def get_by_eid(queryset: QuerySet[M], what: str, eid: str, /, **scope: Any) -> M:
    """The row of ``queryset`` with ``eid`` within ``scope`` (the caller's organization), else
    NotFound "No {what} with eid '...'.": every object's missing message reads the same."""
    return get_or_not_found(queryset, f"No {what} with eid '{eid}'.", eid=eid, **scope)
