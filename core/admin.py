"""Task results (django-tasks' database backend) in the admin: for superusers only.

A task's row names its arguments (organization, delivery and packet ids) and its traceback, and
has no organization to scope it by; staff of one organization must not read another's.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django_tasks_db.admin import DBTaskResultAdmin
from django_tasks_db.models import DBTaskResult


class SuperuserTaskResultAdmin(DBTaskResultAdmin):
    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser


admin.site.unregister(DBTaskResult)
admin.site.register(DBTaskResult, SuperuserTaskResultAdmin)
