"""What a file a signer attaches really is: told by its bytes (magic numbers, then a real parse),
never by its name or the type the browser claims.

Accepted kinds: PDF (opened by qpdf, at least one page), PNG and JPEG (their header parsed by
Pillow with core.engine.images' pixel caps, nothing decoded: an attachment is stored as it came,
never drawn). A HEIC/HEIF photo (an iPhone's own format) is recognised so that the signer is told
plainly why it is refused; anything else is "not an accepted type".

Pure Python (no Django).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.engine.images import TOO_LARGE, image_refusal
from core.engine.pdf import PdfUnreadable, open_pdf

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


def check_attachment(data: bytes, accepted: tuple[str, ...]) -> Checked:
    """``data`` checked against the kinds ``accepted`` (keys of KINDS)."""
    if not data:
        return Checked(refusal=EMPTY)
    kind = sniff(data)
    if kind == HEIC:
        return Checked(refusal=HEIC)
    if kind not in accepted:
        return Checked(refusal=NOT_ACCEPTED)
    if kind == "pdf":
        try:
            with open_pdf(data) as document:
                if len(document.pages) == 0:
                    return Checked(refusal=UNREADABLE)
        except PdfUnreadable:  # a password-protected PDF included: nobody could read it
            return Checked(refusal=UNREADABLE)
        return Checked(kind=kind)
    refusal = image_refusal(
        data,
        max_pixels=MAX_IMAGE_PIXELS,
        max_decoded_bytes=MAX_IMAGE_PIXELS * 4,
        formats=("PNG",) if kind == "png" else ("JPEG",),
    )
    if refusal is not None:
        return Checked(refusal=IMAGE_TOO_LARGE if refusal == TOO_LARGE else UNREADABLE)
    return Checked(kind=kind)
