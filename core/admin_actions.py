"""An admin action runs only on rows the posted selection can name.

Django's ``ModelAdmin.response_action`` hands the ids posted in ``_selected_action`` to
``filter(pk__in=...)`` as they came: an id that is no key of the model (``abc``, a NUL, a number
past its column; a forged post, never the list's own checkboxes) raised in the query, a 500 on
every admin with an action (``delete_selected`` included). ``CheckedActionIds`` refuses such a
selection whole, with a message on the list, and runs nothing.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import ValidationError
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from core.engine.input_checks import COLUMN_RANGES, text_problem

REFUSED = "Nothing was done: the selection names rows that cannot exist."


def names_a_key(model: type[Model], raw: str) -> bool:
    """True if ``raw`` (as posted) can be a primary key of ``model``: of the key's type, and
    within its column when the key is a whole number."""
    if text_problem(raw) is not None:
        return False
    field = model._meta.pk
    assert field is not None
    try:
        value = field.to_python(raw)
    except (ValidationError, ValueError, TypeError):
        return False
    column = COLUMN_RANGES.get(field.get_internal_type())
    return column is None or value in column


class CheckedActionIds(admin.ModelAdmin):
    """A ModelAdmin whose actions refuse a selection that names no possible row."""

    def response_action(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        if not all(names_a_key(self.model, raw) for raw in selected):
            self.message_user(request, REFUSED, messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())
        return super().response_action(request, queryset)
