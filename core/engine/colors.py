"""Colours as the API takes them: 6-digit hex codes."""

from __future__ import annotations

import re

_HEX_COLOR_LOOSE = re.compile(r"#?([0-9A-Fa-f]{6})")
COLOR_MESSAGE = "Must be a 6-digit hex colour such as #3E3E57."


def parse_color(value: object) -> str | None:
    """``"#RRGGBB"`` (upper case) for a 6-digit hex code with or without "#"; None otherwise."""
    match = _HEX_COLOR_LOOSE.fullmatch(value) if isinstance(value, str) else None
    return "#" + match.group(1).upper() if match else None
