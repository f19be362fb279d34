"""Hostile PDFs for the flat-PDF upload and field detection probes, written object by object (no
library would write most of them): a page referenced many thousand times from one page tree, a
tree whose every level repeats the level below (ten bytes a level, 10^10 pages), impossible
MediaBoxes, and a page drawing a picture of hundreds of millions of pixels that compresses to a
few hundred kilobytes."""

from __future__ import annotations

import functools
import zlib

CONTENT = b"BT /F1 11 Tf 72 700 Td (Full name) Tj ET 130 698 m 400 698 l S"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
LETTER = b"[0 0 612 792]"


def raw_pdf(objects: list[bytes]) -> bytes:
    """A PDF of ``objects`` (numbered from 1; the first is the catalog), with a right xref."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def stream(data: bytes, entries: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n" % (len(data), entries) + data + b"\nendstream"


def one_page(
    box: bytes = LETTER, resources: bytes = b"<< /Font << /F1 4 0 R >> >>", *more: bytes
) -> bytes:
    """One page with a label and a line (a text field to find), on the MediaBox ``box``."""
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox "
            + box
            + b" /Contents 5 0 R /Resources "
            + resources
            + b" >>",
            FONT,
            stream(more[0] + b" " + CONTENT if more else CONTENT),
            *more[1:],
        ]
    )


def repeated_page(times: int) -> bytes:
    """One page object listed ``times`` times in the page tree's /Kids: ``times`` pages."""
    kids = b" ".join([b"3 0 R"] * times)
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % times,
            b"<< /Type /Page /Parent 2 0 R /MediaBox "
            + LETTER
            + b" /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            stream(CONTENT),
            FONT,
        ]
    )


def nested_repetition(depth: int = 10, width: int = 10) -> bytes:
    """A page tree ``depth`` levels deep whose every node lists the next ``width`` times:
    ``width ** depth`` pages in a file of a few hundred bytes."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(depth):
        kid = b"%d 0 R" % (3 + level)
        count = width ** (depth - level)
        objects.append(
            b"<< /Type /Pages /Kids [" + b" ".join([kid] * width) + b"] /Count %d >>" % count
        )
    objects.append(b"<< /Type /Page /MediaBox " + LETTER + b" /Contents %d 0 R >>" % (4 + depth))
    objects.append(stream(CONTENT))
    return raw_pdf(objects)


@functools.cache
def pixel_bomb(side: int = 20_000) -> bytes:
    """A page drawing a ``side`` x ``side`` grey picture (400 million pixels at 20,000): its
    samples are zeros, deflated in large pieces (a second to make, under 2 MB)."""
    compressor = zlib.compressobj(1)
    piece = bytes(16 * 1_048_576)
    total = side * side
    chunks = [compressor.compress(piece) for _ in range(total // len(piece))]
    chunks += [compressor.compress(bytes(total % len(piece))), compressor.flush()]
    image = stream(
        b"".join(chunks),
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode " % (side, side),
    )
    return one_page(
        LETTER,
        b"<< /Font << /F1 4 0 R >> /XObject << /Im0 6 0 R >> >>",
        b"q 540 0 0 720 36 36 cm /Im0 Do Q",
        image,
    )
