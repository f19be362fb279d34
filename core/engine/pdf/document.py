"""Opening and saving PDF files: the one place where PDF bytes are parsed and serialized.

qpdf repairs what real-world files get wrong (broken xref tables, bad offsets, wrong /Length)
on opening, and writes every object itself on saving, so what we produce is structurally
sound whatever shape the input had: object streams, xref streams, incremental updates,
permission-only encryption.
"""

from __future__ import annotations

import io

import pikepdf


class PdfUnreadable(ValueError):
    """The bytes are not a PDF that can be opened, even with repair."""


class PdfPasswordRequired(PdfUnreadable):
    """The PDF is encrypted with a user password, which we do not have."""


def open_pdf(data: bytes) -> pikepdf.Pdf:
    """``data`` opened (and repaired when needed).

    Many published forms are encrypted with an empty user password: only permissions are
    restricted, and every viewer opens them without asking. We do the same; saving then writes
    them unencrypted.
    """
    try:
        return pikepdf.open(io.BytesIO(data), password="")
    except pikepdf.PasswordError:
        raise PdfPasswordRequired("the PDF needs a password to open") from None
    except (pikepdf.PdfError, ValueError, RuntimeError) as error:
        raise PdfUnreadable("the file is not a readable PDF") from error


def save_pdf(pdf: pikepdf.Pdf) -> bytes:
    """``pdf`` serialized: unencrypted, only reachable objects, existing streams kept as they are.

    Streams already compressed are copied without decoding (``stream_decode_level`` none,
    ``recompress_flate`` off), which keeps large templates cheap to write; new uncompressed
    streams are compressed.
    """
    out = io.BytesIO()
    pdf.save(
        out,
        compress_streams=True,
        stream_decode_level=pikepdf.StreamDecodeLevel.none,
        object_stream_mode=pikepdf.ObjectStreamMode.preserve,
        recompress_flate=False,
        fix_metadata_version=False,
        linearize=False,
    )
    return out.getvalue()


def concatenate(documents: list[bytes]) -> bytes:
    """One PDF with the pages of ``documents`` in order (a packet's documents merged).

    Pages are copied with everything they use; document-level parts (outlines, an interactive
    form) are not, so prepare the documents flat.
    """
    merged = pikepdf.new()
    sources = [open_pdf(data) for data in documents]  # open until the save copies their objects
    for source in sources:
        merged.pages.extend(source.pages)
    return save_pdf(merged)
