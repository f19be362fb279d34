"""Reading what is in a PDF, for tests: words with positions, fonts, colours, pixels, fields."""

from __future__ import annotations

import html
import io
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image
from pypdf import PdfReader
from pypdf.generic import ContentStream

_PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', re.S)
_WORD = re.compile(
    r'<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">(.*?)</word>', re.S
)


@dataclass(frozen=True)
class PopplerWord:
    """A word as ``pdftotext -bbox`` gives it: origin at the top-left of the page, y down."""

    page: int  # 1-based
    page_height: float
    text: str
    x_min: float
    y_min: float
    x_max: float
    y_max: float


def poppler_words(pdf: bytes) -> list[PopplerWord]:
    """Every word of every page with its box, as poppler's pdftotext -bbox reads it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.pdf"
        path.write_bytes(pdf)
        out = subprocess.run(
            ["pdftotext", "-bbox", "-enc", "UTF-8", str(path), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return [
        PopplerWord(
            number, float(height), html.unescape(t), float(x0), float(y0), float(x1), float(y1)
        )
        for number, (_width, height, body) in enumerate(_PAGE.findall(out), 1)
        for x0, y0, x1, y1, t in _WORD.findall(body)
    ]


@dataclass(frozen=True)
class Word:
    text: str
    # PDF coordinates: origin at the lower-left of the page, y up.
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2


def words(pdf: bytes) -> list[list[Word]]:
    """The words of each page in PDF coordinates (origin lower-left, y up)."""
    pages: list[list[Word]] = [[] for _ in range(len(PdfReader(io.BytesIO(pdf)).pages))]
    for w in poppler_words(pdf):
        h = w.page_height
        pages[w.page - 1].append(Word(w.text, w.x_min, h - w.y_max, w.x_max, h - w.y_min))
    return pages


def joined_words(pdf: bytes) -> str:
    """Every word of the PDF (pdfplumber's, in reading order), joined by spaces."""
    return " ".join(w.text for page in words(pdf) for w in page)


def text_in_rect(page_words: list[Word], rect: dict | tuple, tolerance: float = 1.0) -> str:
    """The words whose boxes lie inside ``rect`` ({x, y, width, height} in points)."""
    if isinstance(rect, dict):
        x, y, w, h = rect["x"], rect["y"], rect["width"], rect["height"]
    else:
        x, y, w, h = rect
    inside = [
        word
        for word in page_words
        if word.x0 >= x - tolerance
        and word.x1 <= x + w + tolerance
        and word.y0 >= y - tolerance
        and word.y1 <= y + h + tolerance
    ]
    inside.sort(key=lambda word: (-round(word.y1), word.x0))
    return " ".join(word.text for word in inside)


def blank_pdf(pages: int = 1, size: tuple[float, float] = (612, 792)) -> bytes:
    """A PDF of empty pages, for templates whose only text is what a fill adds."""
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=size)
    for _ in range(pages):
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def text_page(
    text: str, *, size: tuple[float, float] = (612, 792), at: tuple[float, float] = (72, 720)
) -> bytes:
    """A one-page PDF (reproducible bytes) with ``text`` drawn at ``at``, in the default font."""
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=size, invariant=1)
    canvas.drawString(*at, text)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def inherit_page_attributes(pdf: Any, resources: Any, media_box: list[float]) -> None:
    """Gives the pages of ``pdf`` (a pikepdf.Pdf) their /Resources and /MediaBox once, on an
    intermediate node of the page tree that every page inherits from: a shape real files have."""
    import pikepdf

    pages = [page.obj for page in pdf.pages]
    node = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Pages,
            Kids=pikepdf.Array(pages),
            Count=len(pages),
            Parent=pdf.Root.Pages,
            Resources=resources,
            MediaBox=pikepdf.Array(media_box),
        )
    )
    for page in pages:
        del page["/Resources"]
        del page["/MediaBox"]
        page.Parent = node
    pdf.Root.Pages.Kids = pikepdf.Array([node])


def headed_page(heading: str, drawn: list[tuple[float, float, str]], font_size: float) -> bytes:
    """A letter page (reproducible bytes) with ``heading`` in Helvetica 14 at the top, and each
    (x, y, text) of ``drawn`` in Helvetica ``font_size``."""
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792), invariant=1)
    canvas.setFont("Helvetica", 14)
    canvas.drawString(72, 720, heading)
    canvas.setFont("Helvetica", font_size)
    for x, y, text in drawn:
        canvas.drawString(x, y, text)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def page_text(pdf: bytes, page: int = 0) -> str:
    return PdfReader(io.BytesIO(pdf)).pages[page].extract_text()


def _fonts_of(resources, out: set[str]) -> None:
    if resources is None:
        return
    resources = resources.get_object()
    for font in (resources.get("/Font") or {}).values():
        out.add(str(font.get_object()["/BaseFont"]).split("+")[-1].lstrip("/"))
    for xobject in (resources.get("/XObject") or {}).values():
        xobject = xobject.get_object()
        if xobject.get("/Subtype") == "/Form":
            _fonts_of(xobject.get("/Resources"), out)


def fonts(pdf: bytes, page: int = 0) -> set[str]:
    """Base font names (without subset tags) used on a page, its forms and its widgets."""
    reader = PdfReader(io.BytesIO(pdf))
    out: set[str] = set()
    pdf_page = reader.pages[page]
    _fonts_of(pdf_page.get("/Resources"), out)
    for annot in pdf_page.get("/Annots") or []:
        appearance = annot.get_object().get("/AP")
        if appearance is None:
            continue
        normal = appearance.get_object()["/N"].get_object()
        streams = normal.values() if "/Subtype" not in normal else [normal]
        for stream in streams:
            _fonts_of(stream.get_object().get("/Resources"), out)
    return out


@dataclass(frozen=True)
class TextStyle:
    font: str
    size: float
    color: tuple[float, float, float]


def text_styles(pdf: bytes, page: int = 0) -> list[TextStyle]:
    """(font, size, fill colour) of every text-showing operator of the page's fill overlay.

    Only the overlay form the fill engine adds is read, not the template's own text.
    """
    reader = PdfReader(io.BytesIO(pdf))
    pdf_page = reader.pages[page]
    out: list[TextStyle] = []

    def walk(stream_owner, resources) -> None:
        font_names = {
            str(name): str(font.get_object()["/BaseFont"]).split("+")[-1].lstrip("/")
            for name, font in ((resources.get("/Font") or {}).items() if resources else [])
        }
        color, font, size = (0.0, 0.0, 0.0), "", 0.0
        for operands, operator in ContentStream(stream_owner, reader).operations:
            if operator == b"rg":
                color = tuple(round(float(v), 3) for v in operands)
            elif operator == b"Tf":
                font, size = font_names.get(str(operands[0]), str(operands[0])), float(operands[1])
            elif operator in (b"Tj", b"TJ", b"'", b'"'):
                out.append(TextStyle(font, size, color))
            elif operator == b"Do" and resources is not None:
                xobject = resources["/XObject"][operands[0]].get_object()
                if xobject.get("/Subtype") == "/Form":
                    walk(xobject, xobject.get("/Resources").get_object())

    resources = pdf_page["/Resources"].get_object()
    overlay = resources["/XObject"]["/DocAutomationFill"].get_object()
    walk(overlay, overlay["/Resources"].get_object())
    return out


def render(pdf: bytes, page: int = 0, dpi: int = 72) -> Image.Image:
    """The page as pixels (poppler's pdftoppm); at 72 dpi one pixel is one point."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "in.pdf"
        path.write_bytes(pdf)
        subprocess.run(
            [
                "pdftoppm",
                "-r",
                str(dpi),
                "-f",
                str(page + 1),
                "-l",
                str(page + 1),
                "-png",
                str(path),
                str(Path(tmp) / "out"),
            ],
            check=True,
            capture_output=True,
        )
        produced = sorted(Path(tmp).glob("out*.png"))
        return Image.open(produced[0]).convert("RGB").copy()


def dark_pixels(
    image: Image.Image, rect: dict, page_height: float, dpi: int = 72, threshold: int = 160
) -> int:
    """How many dark pixels lie inside ``rect`` (PDF points) of a page rendered at ``dpi``."""
    scale = dpi / 72
    left = int(rect["x"] * scale) + 1
    right = int((rect["x"] + rect["width"]) * scale) - 1
    top = int((page_height - rect["y"] - rect["height"]) * scale) + 1
    bottom = int((page_height - rect["y"]) * scale) - 1
    count = 0
    for px in range(left, right):
        for py in range(top, bottom):
            if sum(image.getpixel((px, py))) / 3 < threshold:
                count += 1
    return count


def fields(pdf: bytes) -> dict:
    return PdfReader(io.BytesIO(pdf)).get_fields() or {}
