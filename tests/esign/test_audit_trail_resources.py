"""The audit trail drawn with cached resources (issue 38): its text split into glyph runs once
for both layout passes, the signature images decoded once per process, nothing written by the
pass that only counts the pages."""

from __future__ import annotations

from typing import Any

import pytest

from core.engine.pdf.text import TextSetter
from core.resources import font_library
from esign.engine import audit_trail
from esign.engine.audit_trail import draw_audit_trail
from tests.esign.test_audit_trail import text_of, trail


def test_a_trail_splits_its_text_and_decodes_its_images_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    getattr(audit_trail._signature_image, "cache_clear", lambda: None)()  # a test before it
    decoded: list[bytes] = []
    split: list[str] = []
    decode = audit_trail.signature_image
    runs = TextSetter.runs

    def counting_decode(data: bytes) -> Any:
        decoded.append(data)
        return decode(data)

    def counting_runs(self: TextSetter, text: str, face: Any) -> Any:
        split.append(text)
        return runs(self, text, face)

    monkeypatch.setattr(audit_trail, "signature_image", counting_decode)
    monkeypatch.setattr(TextSetter, "runs", counting_runs)
    drawn = trail()

    first = draw_audit_trail(drawn, fonts=font_library())
    second = draw_audit_trail(drawn, fonts=font_library())
    both_passes = len(split) // 2
    split.clear()
    one_pass = audit_trail._Layout(
        drawn, font_library(), None, TextSetter(font_library()), total_pages=2
    ).draw()

    assert len(decoded) == 1  # two passes of two trails: one decode
    # The second layout pass reuses the first one's lines: only its footers (which now carry
    # "page n of m", one per page) are split again.
    assert one_pass[1] == 2
    assert both_passes <= len(split) + one_pass[1], (both_passes, len(split))
    assert first == second  # the same drawing
    assert "page 1 of 2" in text_of(first)
