"""What a file a signer attaches really is: told by its bytes (magic numbers, then a real parse),
never by its name or the type the browser claims.

Accepted kinds: PDF (opened by qpdf, at least one page, within `PdfLimits`), PNG and JPEG (their
header parsed by Pillow with core.engine.images' pixel caps, nothing decoded: an attachment is
stored as it came, never drawn). A HEIC/HEIF photo (an iPhone's own format) is recognised so that
the signer is told plainly why it is refused; anything else is "not an accepted type".

A PDF is checked in an upload-check worker (esign.engine.upload_pool), never in the web process,
and within limits before qpdf builds its list of pages: a 1.2 MB file whose page tree names one
page 200,000 times made qpdf copy that page 200,000 times (the web process went from 216 MB to
645 MB). The raw bytes are scanned first (esign.engine.verify_limits' structural limits: the
objects present and declared, the object streams inflated within a bound), then the page tree is
walked by hand, every page counted as often as it is named, then every stream's decoded size is
added up (inflated a chunk at a time and thrown away; images are never decoded).

Pure Python (no Django).
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass

import pikepdf

from core.engine.images import TOO_LARGE, image_refusal
from esign.engine.verify_limits import PdfOverLimit, VerifyLimits, check_pdf_limits

# The kinds an attachment field may accept, with the content type and file extension stored.
KINDS: dict[str, tuple[str, str]] = {
    "pdf": ("application/pdf", ".pdf"),
    "png": ("image/png", ".png"),
    "jpeg": ("image/jpeg", ".jpg"),
}
# A phone's largest photos are about 50 MP; nothing is decoded here, the cap keeps out files
# whose header declares enough pixels to exhaust whoever opens them later.
MAX_IMAGE_PIXELS = 60_000_000
# The HEIF brands (ISO/IEC 23008-12) phones write: an "ftyp" box at offset 4 names one.
_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"}

# Why a file is refused.
EMPTY = "empty"
HEIC = "heic"
NOT_ACCEPTED = "not_accepted"
UNREADABLE = "unreadable"
IMAGE_TOO_LARGE = "image_too_large"
PDF_TOO_MANY_PAGES = "pdf_too_many_pages"
PDF_TOO_COMPLEX = "pdf_too_complex"  # over PdfLimits' objects or decoded bytes, or the worker's

# Stream filters of images: never decoded here (an attachment is never drawn), counted as stored.
_IMAGE_FILTERS = frozenset({"/DCTDecode", "/JPXDecode", "/JBIG2Decode", "/CCITTFaxDecode"})
_INFLATE_CHUNK = 1_048_576


@dataclass(frozen=True)
class PdfLimits:
    """What an attached PDF may hold. Far above a scan or a contract: a 300-page scanned book is
    a few thousand objects, its pages images (not decoded)."""

    max_pages: int = 1_000  # as the page tree names them, repeats counted
    max_objects: int = 100_000  # present in the raw bytes, or declared by the trailers
    max_decoded_bytes: int = 256 * 1_048_576  # every stream decoded, images as they are stored


@dataclass(frozen=True)
class Checked:
    kind: str = ""  # one of KINDS when accepted
    refusal: str = ""  # one of the refusals above, else ""

    @property
    def content_type(self) -> str:
        return KINDS[self.kind][0]

    @property
    def extension(self) -> str:
        return KINDS[self.kind][1]


def sniff(data: bytes) -> str:
    """The kind the bytes start like: "pdf", "png", "jpeg", "heic", or ""."""
    if data[:1024].lstrip().startswith(b"%PDF-"):
        return "pdf"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return HEIC
    return ""


def check_attachment(
    data: bytes, accepted: tuple[str, ...], pdf_limits: PdfLimits | None = None
) -> Checked:
    """``data`` checked against the kinds ``accepted`` (keys of KINDS); a PDF within
    ``pdf_limits`` (PdfLimits' defaults when None). Run it in an upload-check worker when the
    file may be a PDF."""
    if not data:
        return Checked(refusal=EMPTY)
    kind = sniff(data)
    if kind == HEIC:
        return Checked(refusal=HEIC)
    if kind not in accepted:
        return Checked(refusal=NOT_ACCEPTED)
    if kind == "pdf":
        pdf_refused = pdf_refusal(data, pdf_limits or PdfLimits())
        return Checked(refusal=pdf_refused) if pdf_refused else Checked(kind=kind)
    refusal = image_refusal(
        data,
        max_pixels=MAX_IMAGE_PIXELS,
        max_decoded_bytes=MAX_IMAGE_PIXELS * 4,
        formats=("PNG",) if kind == "png" else ("JPEG",),
    )
    if refusal is not None:
        return Checked(refusal=IMAGE_TOO_LARGE if refusal == TOO_LARGE else UNREADABLE)
    return Checked(kind=kind)


def pdf_refusal(data: bytes, limits: PdfLimits) -> str:
    """Why the PDF ``data`` is refused (UNREADABLE, PDF_TOO_MANY_PAGES, PDF_TOO_COMPLEX), or ""."""
    try:
        check_pdf_limits(
            data,
            VerifyLimits(
                max_objects=limits.max_objects, max_object_stream_bytes=limits.max_decoded_bytes
            ),
        )
    except PdfOverLimit:
        return PDF_TOO_COMPLEX
    try:
        # Not core.engine.pdf.open_pdf: opening with inherited page attributes pushed down makes
        # qpdf build its page list at once, copying a page for each time it is named.
        with pikepdf.open(io.BytesIO(data), password="", inherit_page_attributes=False) as pdf:
            refusal = _page_tree_refusal(pdf, limits)
            if refusal:
                return refusal
            # Within the bound now: qpdf's own list of pages, as any reader will see it.
            if len(pdf.pages) == 0:
                return UNREADABLE
            if _decoded_bytes(pdf, limits.max_decoded_bytes) > limits.max_decoded_bytes:
                return PDF_TOO_COMPLEX
    # A password-protected PDF included (nobody could read it), and a catalog without its parts.
    except (
        pikepdf.PasswordError,
        pikepdf.PdfError,
        ValueError,
        RuntimeError,
        KeyError,
        AttributeError,
    ):
        return UNREADABLE
    return ""


def _page_tree_refusal(pdf: pikepdf.Pdf, limits: PdfLimits) -> str:
    """The page tree walked from the catalog: every page counted each time a /Kids names it (a
    page named twice is two pages to qpdf, which copies it), at most ``max_pages``; the nodes
    visited are bounded too, so a tree that names its own ancestor ends."""
    root = pdf.Root.get("/Pages")
    if not isinstance(root, pikepdf.Dictionary):
        return UNREADABLE
    pages = 0
    visits = 4 * limits.max_pages + 100  # nodes between the root and the pages, and the pages
    stack: list[pikepdf.Object] = [root]
    while stack:
        node = stack.pop()
        visits -= 1
        if visits < 0:
            return PDF_TOO_COMPLEX
        if not isinstance(node, pikepdf.Dictionary):
            continue  # not a page: qpdf leaves it out too
        kids = node.get("/Kids")
        if node.get("/Type") != "/Pages" and not isinstance(kids, pikepdf.Array):
            pages += 1
            if pages > limits.max_pages:
                return PDF_TOO_MANY_PAGES
            continue
        if not isinstance(kids, pikepdf.Array):
            continue
        # Each kid holds a page at least: the array's length alone says when there are too many
        # (200,000 names of one page are refused here, none of them followed).
        if pages + len(stack) + len(kids) > limits.max_pages:
            return PDF_TOO_MANY_PAGES
        stack.extend(kids)
    return ""


def _decoded_bytes(pdf: pikepdf.Pdf, limit: int) -> int:
    """Every stream's size decoded (images as stored), added up until past ``limit``."""
    total = 0
    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Stream):
            total += _stream_decoded_bytes(obj, limit - total)
            if total > limit:
                break
    return total


def _stream_decoded_bytes(stream: pikepdf.Stream, room: int) -> int:
    """The stream's decoded size; past ``room``, some size above it. Flate alone (nearly every
    stream) is inflated here a chunk at a time and thrown away; other general filters (LZW,
    RunLength, ASCII85...) are decoded by qpdf at once, within the worker's memory limit."""
    try:
        raw = stream.read_raw_bytes()
    except pikepdf.PdfError:
        return 0  # unreadable data: nobody decodes it
    filters = stream.get("/Filter")
    if filters is None:
        return len(raw)
    names = [str(f) for f in filters] if isinstance(filters, pikepdf.Array) else [str(filters)]
    general = [name for name in names if name not in _IMAGE_FILTERS]
    if not general:
        return len(raw)
    if names[0] == "/FlateDecode" and general == ["/FlateDecode"]:
        return _inflated_bytes(raw, room)
    try:
        return len(stream.read_bytes(decode_level=pikepdf.StreamDecodeLevel.generalized))
    except pikepdf.PdfError as error:
        # qpdf out of memory says so in a decoding error: the worker's limit, not damage.
        if "bad_alloc" in str(error):
            raise MemoryError from None
        return len(raw)  # damaged, or an image's filter after a general one: qpdf decodes none


def _inflated_bytes(raw: bytes, room: int) -> int:
    inflater = zlib.decompressobj()
    total = 0
    pending = raw
    try:
        while pending and not inflater.eof:
            # max_length is at least 1 here: 0 would mean no bound.
            out = inflater.decompress(pending, min(_INFLATE_CHUNK, room + 1 - total))
            total += len(out)
            if total > room or (not out and inflater.unconsumed_tail == pending):
                break
            pending = inflater.unconsumed_tail
    except zlib.error:
        pass  # damaged: what was inflated counts, as qpdf would decode as much
    return total
