"""``{% load import_map %}{% import_map %}``: the pages' import map (core.importmap)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from core.importmap import import_map_text

register = template.Library()


@register.simple_tag
def import_map() -> SafeString:
    # The text is JSON made by import_map_text (no "</" in it): safe to put in the element.
    return mark_safe(f'<script type="importmap">{import_map_text()}</script>')  # noqa: S308
