"""The verify worker's readers of PDF strings (esign.engine.pdf_strings) read what pyHanko's own
readers read, leave the stream where they leave it, and fail where they fail: only faster."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from pyhanko.pdf_utils import generic

from esign.engine import pdf_strings

PYHANKO_HEX = pdf_strings._originals["hex"]
PYHANKO_LITERAL = pdf_strings._originals["literal"]


def outcome(reader: Callable[[Any], Any], data: bytes) -> tuple[Any, ...]:
    stream = io.BytesIO(data)
    try:
        value = reader(stream)
    except Exception as error:  # noqa: BLE001 - the kind and message are what is compared
        return ("error", type(error).__name__, str(error))
    return (type(value).__name__, bytes(value.original_bytes), stream.tell())


HEX_CASES = [
    b"<>",
    b"<48656c6c6f> rest",
    b"<48 65\n6c\t6c\r6f\x00>x",
    b"<4865 6>",  # an odd count of digits: a 0 is added
    b"<feff00480069>",  # UTF-16 text
    b"<30820a> 12 0 R",
    b"<12zz>",
    b"<1234",  # no end
    b"<12 % a comment > still\n 34>",
    b"<" + b"0" * 300_000 + b">trailing",
    b"<" + b"ab " * 100_000 + b"> ",
]

LITERAL_CASES = [
    b"()",
    b"(Hello) Tj",
    b"(a (nested (twice)) string) x",
    b"(escaped \\( and \\) and \\\\) y",
    b"(\\n\\r\\t\\b\\f\\/\\%\\<\\>\\[\\]\\#\\_\\&\\$)",
    b"(octal \\101\\1012\\7\\07 end)",
    b"(split \\\nline \\\r\nline \\\n\nx)",
    b"(bad octal \\8)",
    b"(too high \\777)",
    b"(unknown \\q escape)",
    b"(no end",
    b"(ends on a backslash \\",
    b"\xfe\xff".join([b"(", b"\x00A)"]),
    b"(" + b"A" * 200_000 + b") after",
    b"(" + b"(" * 70_000 + b")" * 70_000 + b")x",
    b"(" + b"x\\)" * 70_000 + b")x",
]


@pytest.mark.parametrize("data", HEX_CASES)
def test_a_hex_string_reads_as_pyhanko_reads_it(data: bytes) -> None:
    assert outcome(pdf_strings.read_hex_string, data) == outcome(PYHANKO_HEX, data)


@pytest.mark.parametrize("data", LITERAL_CASES)
def test_a_literal_string_reads_as_pyhanko_reads_it(data: bytes) -> None:
    assert outcome(pdf_strings.read_literal_string, data) == outcome(PYHANKO_LITERAL, data)


def test_an_escape_split_across_chunks_is_read_whole() -> None:
    """A backslash as the last byte of the first chunk read: its escaped parenthesis is not the
    string's end."""
    data = b"(" + b"a" * (pdf_strings._CHUNK - 1) + b"\\)b)c"

    assert outcome(pdf_strings.read_literal_string, data) == outcome(PYHANKO_LITERAL, data)
    assert outcome(pdf_strings.read_literal_string, data)[1].endswith(b"a)b")


def test_installed_readers_parse_objects() -> None:
    pdf_strings.install()
    try:
        assert generic.read_hex_string_from_stream is pdf_strings.read_hex_string
        assert generic.read_string_from_stream is pdf_strings.read_literal_string
        parsed = generic.read_object(io.BytesIO(b"[<4142> (x(y))]"), None)
    finally:
        generic.read_hex_string_from_stream = PYHANKO_HEX
        generic.read_string_from_stream = PYHANKO_LITERAL

    assert list(parsed) == ["AB", "x(y)"]


class CountingReads(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.reads = 0

    def read(self, size: int | None = -1, /) -> bytes:
        self.reads += 1
        return super().read(size)


def test_a_long_string_is_read_at_once() -> None:
    """Not timed (the figures are bench/verify_attack.py's): counted. pyHanko's reader takes
    8 MB of digits a byte or two at a time, millions of reads and seconds; the fast one reads in
    growing chunks, a few dozen reads whatever the load on the machine."""
    stream = CountingReads(b"<" + b"0" * 8_000_000 + b">")
    value = pdf_strings.read_hex_string(stream)
    assert len(value.original_bytes) == 4_000_000
    assert stream.reads < 100, stream.reads
