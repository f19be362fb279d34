"""Task results (django-tasks' database backend) and the emails the development backend kept
(core.mail) in the admin: for superusers only.

A task's row names its arguments (organization, delivery and packet ids) and its traceback, and
has no organization to scope it by; staff of one organization must not read another's.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django_tasks_db.admin import DBTaskResultAdmin
from django_tasks_db.models import DBTaskResult

from core.admin_actions import CheckedActionIds
from core.models import SentEmail

# http(s) links in an email's text, up to the next blank or closing bracket.
_URL = re.compile(r"https?://[^\s<>()\"']+")


class SuperuserTaskResultAdmin(CheckedActionIds, DBTaskResultAdmin):
    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser


admin.site.unregister(DBTaskResult)
admin.site.register(DBTaskResult, SuperuserTaskResultAdmin)


@admin.register(SentEmail)
class SentEmailAdmin(CheckedActionIds):
    """The emails the development backend kept, with their links: read-only, superusers only
    (they hold live signing links of every organization)."""

    list_display = ["created_at", "to", "subject"]
    search_fields = ["to", "subject"]
    date_hierarchy = "created_at"
    fields = ["created_at", "from_email", "to", "subject", "links", "text"]
    readonly_fields = fields

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="Links")
    def links(self, email: SentEmail) -> str:
        urls = list(dict.fromkeys(_URL.findall(email.body)))
        if not urls:
            return "—"
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "", '<li><a href="{}" rel="noreferrer">{}</a></li>', ((u, u) for u in urls)
            ),
        )

    @admin.display(description="Text")
    def text(self, email: SentEmail) -> str:
        return format_html('<pre style="white-space: pre-wrap">{}</pre>', email.body)
