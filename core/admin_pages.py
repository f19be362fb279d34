"""The admin's pages of its own (beyond Django's change form): their URLs, and the object such a
page changes.

A page an admin adds to its model (the template editor, the webform builder) is behind the admin
site's login (``admin_view``) and reaches its object through the admin's own queryset, so that
tenancy and the change permission are decided where Django's change form decides them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.urls import URLPattern, path


def own_pages(
    model_admin: admin.ModelAdmin, prefix: str, pages: Iterable[tuple[str, Callable[..., Any], str]]
) -> list[URLPattern]:
    """The URLs of ``model_admin``'s own pages, each ``(route, view, name)`` behind the admin
    site's login and named ``<prefix>_<name>``."""
    view = model_admin.admin_site.admin_view
    return [path(route, view(page), name=f"{prefix}_{name}") for route, page, name in pages]


def object_for_change(
    model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str, missing: str
) -> Any:
    """The object ``object_id`` of ``model_admin``, for a page that changes it: a 404 saying
    ``missing`` when the user cannot see it (absent, or another organization's), a 403 when they
    may not change it."""
    obj = model_admin.get_object(request, object_id)
    if obj is None:
        raise Http404(missing)
    if not model_admin.has_change_permission(request, obj):
        raise PermissionDenied
    return obj
