"""``{% load signer_text %}``: ``{{ value|isolated }}`` is ``<bdi>value</bdi>`` (escaped), for a
title, a name or a label the sender or the signer wrote, put in a sentence of the page's
language. Isolated, it keeps its own direction and leaves the sentence's alone: an English
title on an Arabic page reads « Invoice (PDF) », not « Invoice» (PDF)«. Usable in
``blocktranslate with``, so the catalogue's messages stay as they are."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()


@register.filter
def isolated(value: Any) -> SafeString:
    return format_html("<bdi>{}</bdi>", value)
