"""The words a person reads on a page, for checking that a page is in a language: its text, the
labels only assistive technology reads (aria-label, title, alt, placeholder), and the strings its
scripts show (the JSON data blocks the pages carry for their scripts)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

READ_ATTRIBUTES = ("aria-label", "title", "alt", "placeholder")
LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.segments: list[str] = []
        self.stack: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in READ_ATTRIBUTES:
            if values.get(name):
                self.segments.append(values[name] or "")
        if tag in ("script", "style"):
            self.stack.append((tag, values.get("type") or ""))

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not self.stack:
            self.segments.append(data)
        elif self.stack[-1] == ("script", "application/json"):
            self.segments.extend(_strings(json.loads(data)))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def read_segments(html: str) -> list[str]:
    """Each piece of text of ``html`` a person may read, whitespace collapsed, those with a letter."""
    reader = _Reader()
    reader.feed(html)
    collapsed = (" ".join(segment.split()) for segment in reader.segments)
    return [segment for segment in collapsed if LETTER.search(segment)]
