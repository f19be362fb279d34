"""The structural check that every fill test's output goes through can fail."""

from __future__ import annotations

import pytest

from tests.pdfcheck import text_page
from tests.pdfsound import assert_sound, page_counts, qpdf_check


def one_page() -> bytes:
    return text_page("Hello", size=(200, 200), at=(20, 100))


def test_a_sound_pdf_passes() -> None:
    pdf = one_page()
    assert_sound(pdf, template=pdf)
    assert page_counts(pdf) == {"pdfminer": 1, "pypdf": 1, "pdfium": 1, "poppler": 1}


def test_a_stream_written_inline_in_contents_fails() -> None:
    # The shape the old hand-written writer produced: a stream as a direct object in /Contents.
    pdf = one_page()
    start = pdf.index(b"/Contents ")
    end = pdf.index(b"R", start) + 1
    broken = pdf[:start] + b"/Contents [ << /Length 0 >> stream\nendstream ]" + pdf[end:]
    assert qpdf_check(broken).warnings
    with pytest.raises(AssertionError):
        assert_sound(broken, template=pdf)


def test_more_warnings_than_the_template_fails() -> None:
    pdf = one_page()
    damaged = pdf[: pdf.rindex(b"startxref")] + b"startxref\n12\n%%EOF\n"
    assert qpdf_check(damaged).warnings
    with pytest.raises(AssertionError):
        assert_sound(damaged, template=pdf)
    assert_sound(damaged, template=damaged)  # as broken as its input: not the writer's fault
