"""Change pages that show more about their row than its fields: links to the admin's own pages
of the row (publish, preview...), and what the admin tells of a row the user sees (a packet's
tools, a bulk send's preview and progress); Django's change view does the rest."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import reverse


def own_page_urls(prefix: str, object_id: str, names: Iterable[str]) -> dict[str, str]:
    """For the change page's template: ``<name>_url``, the address of each of the admin's own
    pages of the object, named ``admin:<prefix>_<name>`` (``core.admin_pages.own_pages``)."""
    return {f"{name}_url": reverse(f"admin:{prefix}_{name}", args=[object_id]) for name in names}


class RowContextAdmin:
    """Mixed into a ModelAdmin (before it), which defines ``row_context(request, row)``: the
    change page's extra context. Only a row of the admin's own queryset gets it; any other id
    (another organization's, a missing one, not a number) is left to Django's change view, which
    answers as it does for a row that does not exist."""

    def row_context(self, request: HttpRequest, row: Any) -> dict[str, Any]:
        raise NotImplementedError

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        queryset = self.get_queryset(request)  # type: ignore[attr-defined]
        row = queryset.filter(pk=object_id).first() if object_id.isdigit() else None
        context = dict(extra_context or {})
        if row is not None:
            context.update(self.row_context(request, row))
        return super().change_view(  # type: ignore[misc]
            request, object_id, form_url, context
        )
