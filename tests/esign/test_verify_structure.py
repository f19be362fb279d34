"""The structural limits of verification (esign.engine.seal_verify.check_pdf_limits): cheap
scans of the raw bytes, before any parse, that refuse what would make pyHanko's parse unbounded."""

from __future__ import annotations

import re

import pytest

from esign.engine.verify_limits import PdfOverLimit, VerifyLimits, check_pdf_limits
from tests.esign.hostile_pdf import oversized_signature_pdf
from tests.esign.test_seal_engine import three_pages

LIMITS = VerifyLimits(
    max_signature_contents_bytes=1000, max_revisions=3, max_objects=50, max_signatures=2
)


def refusal(pdf: bytes, limits: VerifyLimits = LIMITS) -> str:
    with pytest.raises(PdfOverLimit) as refused:
        check_pdf_limits(pdf, limits)
    return refused.value.problems[0].message


def test_a_plain_pdf_is_within_the_limits() -> None:
    check_pdf_limits(three_pages(), LIMITS)


def test_signature_contents_over_the_limit_are_refused_by_their_byte_range() -> None:
    pdf = three_pages() + b"<< /ByteRange [0 100 4102 50] /Contents <" + b"0" * 4000 + b"> >>"

    assert refusal(pdf) == "A signature's contents are 2,000 bytes; the limit is 1,000 bytes."


def test_a_long_hex_string_is_refused_whatever_the_byte_range_says() -> None:
    pdf = three_pages() + b"<< /ByteRange [0 1 3 4] /Contents <" + b"ab " * 1000 + b"> >>"

    assert refusal(pdf) == (
        "The file holds a string longer than a signature's contents may be (1,000 bytes)."
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (b"startxref\n1\n%%EOF\n" * 3, r"The file has 4 revisions; the limit is 3\."),
        (
            b"".join(b"%d 0 obj\nnull\nendobj\n" % n for n in range(100, 160)),
            r"The file has 71 objects; the limit is 50\.",  # three_pages() has 11
        ),
        (
            b"9 0 obj << /Type /XRef /Size 51 /W [1 2 1] >> stream\n",
            r"A cross-reference stream declares 51 entries; the limit is 50\.",
        ),
        (
            b"9 0 obj << /Type /XRef /Size 3 /Index [0 2 10 49] /W [1 2 1] >> stream\n",
            r"A cross-reference stream declares 51 entries; the limit is 50\.",
        ),
        (
            b"".join(b"<< /Type /ObjStm /N 20 >> stream\n" for _ in range(2)),
            r"The file has 51 objects; the limit is 50\.",  # 11 + 2 x 20
        ),
        (b"<< /ByteRange [0 1 2 3] >>" * 3, r"The file has 3 signatures; the limit is 2\."),
    ],
)
def test_structural_limits(extra: bytes, message: str) -> None:
    assert re.fullmatch(message, refusal(three_pages() + extra))


def test_a_trailer_size_is_no_objects() -> None:
    """Before, the trailer's declared /Size counted as objects: a file declaring 51 held 51."""
    check_pdf_limits(three_pages() + b"trailer << /Size 51 >>", LIMITS)


def test_the_attack_is_refused_by_its_signature_contents() -> None:
    """The security report's file: one signature of 12 MB of hexadecimal digits."""
    message = refusal(oversized_signature_pdf(), VerifyLimits())

    assert message == "A signature's contents are 5.7 MB; the limit is 1 MB."
