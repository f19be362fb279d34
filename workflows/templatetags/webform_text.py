"""What a webform's author wrote, put into the page's own sentences: ``{{ title|bdi }}`` is
``<bdi>title</bdi>``, so "Do you have pets?" keeps its "?" at its end on an Arabic page (the
text's own characters set its direction, not the page's)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.filter
def bdi(value: Any) -> SafeString:
    """``value``, escaped, in a <bdi> element ("" stays "")."""
    return format_html("<bdi>{}</bdi>", value) if value not in (None, "") else SafeString("")
