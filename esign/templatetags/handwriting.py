"""``{% load handwriting %}``: ``{% handwriting_letters %}`` is the code points the handwriting
faces of typed signatures cover (esign.engine.handwriting), as ranges, for the signing page's
note that a name is shown in a plain font."""

from __future__ import annotations

from django import template

from esign.engine.handwriting import handwriting_letters as _letters
from esign.packets.documents import HANDWRITING_FONT

register = template.Library()


@register.simple_tag
def handwriting_letters() -> str:
    return _letters(HANDWRITING_FONT)
