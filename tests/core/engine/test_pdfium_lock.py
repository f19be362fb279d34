"""Every call into pdfium that a web thread makes holds core.engine.pdfium_lock.PDFIUM, closes
included (pypdfium2 closes its objects when they are collected, in whatever thread drops them):
pdfium is not thread-safe, and a web process crashed with SIGSEGV in a 1,000-packet burst while
uploads' text tags were read beside signers' page pictures."""

from __future__ import annotations

import ctypes
import gc

import pypdfium2.raw as pdfium_c
import pytest

from core.engine.pdfium_lock import PDFIUM
from core.resources import font_library
from esign.engine.pages import page_boxes, render_page
from esign.engine.verification_mark import verification_mark
from templates_app.engine.text_tags import apply_text_tags, tag_template
from tests.pdfcheck import headed_page

TAGGED = headed_page("Services agreement", [(72, 600, "Sign here: {{signature}}")], 11)


@pytest.fixture
def unlocked_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of pdfium's functions called while PDFIUM was not held (every one is watched:
    pypdfium2's helpers look them up on ``pypdfium2.raw`` at each call)."""
    calls: list[str] = []
    for name in dir(pdfium_c):
        function = getattr(pdfium_c, name)
        if not isinstance(function, ctypes._CFuncPtr):  # noqa: SLF001 - ctypes' function type
            continue

        def watched(*args: object, _function=function, _name=name) -> object:
            if not PDFIUM.locked():
                calls.append(_name)
            return _function(*args)

        monkeypatch.setattr(pdfium_c, name, watched)
    return calls


def test_the_watch_sees_a_call_made_without_the_lock(unlocked_calls: list[str]) -> None:
    pdfium_c.FPDF_GetLastError()

    assert unlocked_calls == ["FPDF_GetLastError"]


def test_an_uploads_text_tags_are_read_under_the_lock(unlocked_calls: list[str]) -> None:
    tagged = apply_text_tags(TAGGED)
    pdf, spec, problems = tag_template(TAGGED)
    del tagged, pdf, spec, problems
    gc.collect()

    assert unlocked_calls == []


def test_page_pictures_and_the_verification_mark_are_drawn_under_the_lock(
    unlocked_calls: list[str],
) -> None:
    picture = render_page(TAGGED, index=0, width=480)
    boxes = page_boxes(TAGGED)
    marked = verification_mark(
        TAGGED, url="https://sign.example.com/verify?d=0123", words="Verify", fonts=font_library()
    )
    del boxes
    gc.collect()

    assert unlocked_calls == []
    assert picture[:4] == b"RIFF"  # still a WebP: drawn from a copy made before the close
    assert marked.startswith(b"%PDF-")
