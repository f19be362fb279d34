"""Publishing in the admin of rows with versions (a PDF template, a workflow): the change list's
Published and Unpublished changes columns, publishing one row with a message that says how it
went, and the page that publishes one row from its change page.

Both apps keep a working version and snapshot it as the next published number; only the services
that summarise and publish differ, which each admin names (``version_summary``,
``publish_version``)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from core.errors import ServiceError


class PublishingAdmin:
    """Mixed into a ModelAdmin (before it). Its subclass defines ``version_summary(row)`` (with
    ``published_number`` and ``has_unpublished_changes``), ``publish_version(row)`` (the version
    published, or a ServiceError saying why not) and ``row_for_change(request, object_id)`` (the
    row, 404 if the user does not see it, 403 if they may not change it)."""

    # ModelAdmin's, for the change page the publish page returns to.
    opts: Any

    def version_summary(self, row: Any) -> Any:
        raise NotImplementedError

    def publish_version(self, row: Any) -> Any:
        raise NotImplementedError

    def row_for_change(self, request: HttpRequest, object_id: str) -> Any:
        raise NotImplementedError

    @admin.display(description="Published")
    def published(self, row: Any) -> str:
        number = self.version_summary(row).published_number
        return f"v{number}" if number else "never"

    @admin.display(description="Unpublished changes", boolean=True)
    def unpublished_changes(self, row: Any) -> bool:
        return self.version_summary(row).has_unpublished_changes

    def _publish(self, request: HttpRequest, row: Any) -> None:
        try:
            version = self.publish_version(row)
        except ServiceError as error:
            messages.error(request, f"{row}: not published: {error.message}")
            return
        messages.success(request, f"{row}: published as version {version.number}.")

    def publish_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponse(status=405)
        row = self.row_for_change(request, object_id)
        self._publish(request, row)
        change = f"admin:{self.opts.app_label}_{self.opts.model_name}_change"
        return HttpResponseRedirect(reverse(change, args=[row.pk]))
