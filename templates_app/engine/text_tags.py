"""Fields placed by text tags: ``{{Name;type=date;role=Tenant}}`` written in a document.

The tags are found in a PDF's text layer, read by pdfium character by character, as field
detection reads it (``detect_fields``): each character with its box (its advance across, its
font's ascent and descent from the baseline up and down), in the page's default user space
(widget rects'). A tag may be drawn in several runs, fonts or lines; its text is the characters
between ``{{`` and ``}}``, the line breaks pdfium adds between lines read as spaces. The
field's rect is the box of the tag's characters (a checkbox: a square at its start); a tag
broken over lines is placed at its widest piece (the grammar, ``tag_grammar``, says what it
asks for; docs/text-tags.md).

``apply_text_tags`` finds the tags, removes their glyphs from the pages (``text_redact``) and
gives the fields, with an alias each (the tag's name as an identifier, unique), and the
problems: a tag that does not read, a ``{{`` never closed, a tag whose text could not be
removed, each with its page. ``tag_template`` is the same as a template spec (a PDF uploaded
with tags becoming a template with those fields).

Pure Python.
"""

from __future__ import annotations

import ctypes
import math
import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from core.engine.field_types import TEMPLATE_TYPES
from core.engine.pdfium_lock import PDFIUM
from core.engine.template_spec import FieldSpec, Rect, Style, TemplateSpec
from templates_app.engine.aliases import ascii_words, camel_case, unique_aliases
from templates_app.engine.detect_fields import DetectRefused, detect_fields
from templates_app.engine.tag_grammar import Tag, TagSyntaxError, parse_tag
from templates_app.engine.text_redact import remove_glyphs

# A tag is at most this many characters: a "{{" never closed does not swallow the page.
MAX_TAG_CHARS = 400
MAX_TAG_PAGES = 500
_TAG = re.compile(r"\{\{(?:(?!\{\{|\}\}).){0," + str(MAX_TAG_CHARS) + r"}?\}\}", re.DOTALL)
_OPEN = re.compile(r"\{\{")
# A font's ascent and descent (in ems) are believed from this much; below, the font's
# descriptor says nothing (0), and a Latin font's usual line is taken: Helvetica's, Carlito's
# and Liberation's run from about 0.95 above the baseline to 0.25 below.
MIN_ASCENT = 0.7
MIN_DESCENT = 0.05
LINE_ASCENT = 0.95
LINE_DESCENT = 0.25


@dataclass(frozen=True)
class TagProblem:
    page: int  # 0-based
    text: str  # the tag as written (or its start, for one never closed)
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"page": self.page, "tag": self.text, "message": self.message}


@dataclass(frozen=True)
class FoundTag:
    """One tag in a PDF: what it asks for (None: it does not read), where it is."""

    text: str
    page: int
    rect: Rect  # the box of its widest piece
    pieces: tuple[Rect, ...]  # the box of its characters on each line
    font_size: float
    tag: Tag | None
    error: str = ""


@dataclass(frozen=True)
class TagField:
    """A field a tag placed."""

    alias: str
    tag: Tag
    page: int
    rect: Rect
    font_size: float  # of the tag's text: a text field's value is written as big

    @property
    def type(self) -> str:
        return self.tag.type

    def to_json(self) -> dict[str, Any]:
        tag = self.tag
        out: dict[str, Any] = {
            "alias": self.alias,
            "name": tag.name,
            "type": tag.type,
            "page": self.page,
            "rect": self.rect.to_json(),
            "required": tag.required,
        }
        if tag.role:
            out["role"] = tag.role
        if tag.signer is not None:
            out["signer"] = tag.signer
        if tag.read_only:
            out["readOnly"] = True
        if tag.default:
            out["default"] = tag.default
        return out

    def field_spec(self, number: int) -> FieldSpec:
        """The template field (id ``f<number>``): the signer, required and default of the tag
        are the caller's to keep (a template field has no place for them)."""
        style = Style()
        # A value written in the field is as big as the tag's text was (not a mark or a picture).
        if not TEMPLATE_TYPES[self.type].signer and self.type not in ("checkbox", "imageFile"):
            style = Style(font_size=round(self.font_size, 1))
        return FieldSpec(
            id=f"f{number}",
            alias=self.alias,
            type=self.type,
            page=self.page,
            rect=self.rect,
            label=self.tag.label or self.tag.name,
            style=style,
            read_only=self.tag.read_only,
        )


@dataclass(frozen=True)
class TaggedPdf:
    pdf: bytes  # the PDF without the tags' text
    fields: tuple[TagField, ...]
    problems: tuple[TagProblem, ...]


def _union(boxes: list[tuple[float, float, float, float]]) -> Rect:
    left = min(box[0] for box in boxes)
    bottom = min(box[1] for box in boxes)
    right = max(box[2] for box in boxes)
    top = max(box[3] for box in boxes)
    return Rect(left, bottom, right - left, top - bottom)


class _PageText:
    """A page's characters: their text (pdfium's added line breaks kept), boxes and sizes."""

    def __init__(self, text: pdfium.PdfTextPage) -> None:
        self.text = text
        count = text.count_chars()
        # The page's text at once; character by character where it does not line up with the
        # characters (a character outside the BMP is two UTF-16 units in pdfium's text).
        chars = text.get_text_range(0, count) if count else ""
        if len(chars) != count:
            chars = "".join(
                chr(pdfium_c.FPDFText_GetUnicode(text.raw, i) or 32) for i in range(count)
            )
        self.chars = chars

    def drawn(self, index: int) -> bool:
        """A character the page draws (not a space or line break pdfium added)."""
        return (
            pdfium_c.FPDFText_IsGenerated(self.text.raw, index) != 1
            and not self.chars[index].isspace()
        )

    def pieces(self, start: int, end: int) -> list[tuple[list[int], Rect]]:
        """The drawn characters of ``start:end`` in pieces, one per line, with their boxes."""
        pieces: list[tuple[list[int], list[tuple[float, float, float, float]]]] = []
        for index in range(start, end):
            if not self.drawn(index):
                continue
            box = self.box(index)
            if pieces:
                last = pieces[-1][1][-1]
                height = last[3] - last[1]
                # The same line: the next character starts near where the last one ended.
                if abs(box[1] - last[1]) < height / 2 and last[0] - 1 <= box[0]:
                    pieces[-1][0].append(index)
                    pieces[-1][1].append(box)
                    continue
            pieces.append(([index], [box]))
        return [(indexes, _union(boxes)) for indexes, boxes in pieces]

    def font_size(self, index: int) -> float:
        """The size the character is seen at: its font's size scaled by its matrix (an HTML
        renderer sets sizes in CSS pixels and draws them three quarters as big)."""
        matrix = pdfium_c.FS_MATRIX()
        size = float(pdfium_c.FPDFText_GetFontSize(self.text.raw, index))
        if pdfium_c.FPDFText_GetMatrix(self.text.raw, index, matrix):
            size *= math.hypot(matrix.c, matrix.d)
        return size

    def box(self, index: int) -> tuple[float, float, float, float]:
        """The character's box: across, its advance (pdfium's loose box); up and down, its
        font's ascent and descent from the baseline. pdfium's loose box takes those from the
        font's descriptor, which some writers leave at 0 (LibreOffice): then a Latin font's
        usual line is used."""
        left, bottom, right, top = self.text.get_charbox(index, loose=True)
        raw = self.text.raw
        matrix = pdfium_c.FS_MATRIX()
        if not pdfium_c.FPDFText_GetMatrix(raw, index, matrix) or abs(matrix.b) + abs(matrix.c):
            return left, bottom, right, top  # turned text: pdfium's box as it is
        font = pdfium_c.FPDFTextObj_GetFont(pdfium_c.FPDFText_GetTextObject(raw, index))
        ascent, descent = ctypes.c_float(), ctypes.c_float()
        one = ctypes.c_float(1.0)
        if not (
            font
            and pdfium_c.FPDFFont_GetAscent(font, one, ctypes.byref(ascent))
            and pdfium_c.FPDFFont_GetDescent(font, one, ctypes.byref(descent))
            and ascent.value >= MIN_ASCENT
            and descent.value <= -MIN_DESCENT
        ):
            ascent.value, descent.value = LINE_ASCENT, -LINE_DESCENT
        x, y = ctypes.c_double(), ctypes.c_double()
        pdfium_c.FPDFText_GetCharOrigin(raw, index, ctypes.byref(x), ctypes.byref(y))
        size = self.font_size(index)
        return left, y.value + descent.value * size, right, y.value + ascent.value * size


def _text_of(page: _PageText, start: int, end: int) -> str:
    # pdfium's line breaks (and any run of spaces) are one space to the grammar.
    return "".join(
        char if page.drawn(start + i) else " " for i, char in enumerate(page.chars[start:end])
    )


def _page_tags(page: _PageText, number: int) -> tuple[list[FoundTag], list[TagProblem]]:
    found: list[FoundTag] = []
    problems: list[TagProblem] = []
    covered: set[int] = set()
    for match in _TAG.finditer(page.chars):
        text = " ".join(_text_of(page, match.start(), match.end()).split())
        pieces = page.pieces(match.start(), match.end())
        if not pieces:
            continue
        covered.update(range(match.start(), match.end()))
        indexes, rect = max(pieces, key=lambda piece: piece[1].width)
        tag, error = None, ""
        try:
            tag = parse_tag(text)
        except TagSyntaxError as exc:
            error = str(exc)
            problems.append(TagProblem(number, text, error))
        found.append(
            FoundTag(
                text=text,
                page=number,
                rect=rect,
                pieces=tuple(box for _indexes, box in pieces),
                font_size=page.font_size(indexes[0]),
                tag=tag,
                error=error,
            )
        )
    for match in _OPEN.finditer(page.chars):
        if match.start() not in covered:
            start = " ".join(page.chars[match.start() : match.start() + 40].split())
            problems.append(TagProblem(number, start, "This {{ is never closed by }}."))
            covered.update(range(match.start(), match.start() + 2))
    return found, problems


def find_tags(
    data: bytes, *, max_pages: int = MAX_TAG_PAGES, pages: Collection[int] | None = None
) -> tuple[list[FoundTag], list[TagProblem]]:
    """Every tag in the PDF ``data`` (on ``pages``, 0-based; all when None), page by page,
    and the problems of those that do not read (malformed, never closed). Raises DetectRefused
    for a file that is not a readable PDF or has more than ``max_pages`` pages."""
    if b"%PDF-" not in data[:1024]:
        raise DetectRefused("not_pdf", "The file is not a PDF.")
    # Called in web threads (an upload's tags): page pictures may be drawn at the same time.
    with PDFIUM:
        return _tags_read(data, max_pages=max_pages, pages=pages)


def _tags_read(
    data: bytes, *, max_pages: int, pages: Collection[int] | None
) -> tuple[list[FoundTag], list[TagProblem]]:
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise DetectRefused("damaged", "The PDF is damaged or needs a password.") from exc
    found: list[FoundTag] = []
    problems: list[TagProblem] = []
    try:
        if len(document) > max_pages:
            raise DetectRefused(
                "too_many_pages", f"Tags are looked for on at most {max_pages} pages."
            )
        for number in range(len(document)):
            if pages is not None and number not in pages:
                continue
            page = document[number]
            text = page.get_textpage()
            try:
                tags, trouble = _page_tags(_PageText(text), number)
            finally:
                text.close()
                page.close()
            found.extend(tags)
            problems.extend(trouble)
    finally:
        document.close()
    return found, problems


def _sized(found: FoundTag, tag: Tag) -> Rect:
    """The tag's box, or the width and height it asks for from its top-left corner. A
    checkbox is square: as tall as the tag, at its start."""
    rect = found.rect
    if tag.type == "checkbox" and tag.width is None and tag.height is None:
        return Rect(rect.x, rect.y, rect.height, rect.height)
    width = tag.width if tag.width is not None else rect.width
    height = tag.height if tag.height is not None else rect.height
    return Rect(rect.x, rect.top - height, width, height)


def _alias_stem(tag: Tag) -> str:
    words = ascii_words(tag.name) or ascii_words(tag.label)
    if words:
        return camel_case(words)
    stem = TEMPLATE_TYPES[tag.type].alias_stem or tag.type
    # As detection names them: "signature", but "text1", "checkbox2" for the others.
    return stem if TEMPLATE_TYPES[tag.type].signer else f"{stem}1"


def tag_fields(found: list[FoundTag]) -> list[TagField]:
    """The fields of the tags that read, with unique aliases."""
    good = [(item, item.tag) for item in found if item.tag is not None]
    aliases = unique_aliases(_alias_stem(tag) for _item, tag in good)
    return [
        TagField(
            alias=alias,
            tag=tag,
            page=item.page,
            rect=_sized(item, tag),
            font_size=tag.font_size or item.font_size,
        )
        for (item, tag), alias in zip(good, aliases, strict=True)
    ]


def apply_text_tags(data: bytes, *, max_pages: int = MAX_TAG_PAGES) -> TaggedPdf:
    """The PDF ``data`` with the text of its tags removed, the fields they place, and the
    problems (malformed tags, text that could not be removed), each with its page. A malformed
    tag's text is left where it is: the document's author has something to fix."""
    found, problems = find_tags(data, max_pages=max_pages)
    boxes: dict[int, list[Rect]] = {}
    for item in found:
        if item.tag is not None:
            boxes.setdefault(item.page, []).extend(item.pieces)
    pdf = remove_glyphs(data, boxes) if boxes else data
    if boxes:
        # What is still there was drawn where the remover does not reach (inside a form
        # XObject, an annotation's appearance): said, not silently left on the page.
        left, _ = find_tags(pdf, max_pages=max_pages, pages=set(boxes))
        for item in left:
            if item.tag is not None:
                problems.append(
                    TagProblem(item.page, item.text, "The tag's text could not be removed.")
                )
    return TaggedPdf(pdf=pdf, fields=tuple(tag_fields(found)), problems=tuple(problems))


def tag_template(
    data: bytes, spec: TemplateSpec | None = None, *, max_pages: int = MAX_TAG_PAGES
) -> tuple[bytes, TemplateSpec, tuple[TagProblem, ...]]:
    """A PDF with text tags as a template: the PDF without the tags' text, the spec with the
    tags' fields, and the problems. ``spec``: what the importer made of the same PDF
    (``pdf_import``: its pages and its AcroForm's fields, ``data`` being its base PDF); the
    tags' fields come after its fields, their ids and aliases unique among them. Without it,
    the spec of the PDF's pages and the tags' fields alone."""
    tagged = apply_text_tags(data, max_pages=max_pages)
    if spec is None:
        # Detection on no page at all: the page specs alone, read as detection reads them (here,
        # in a web thread: under pdfium's lock, as find_tags).
        with PDFIUM:
            spec = TemplateSpec(pages=detect_fields(tagged.pdf, pages=()).pages)
    ids = {field.id for field in spec.fields}
    aliases = unique_aliases([*(f.alias for f in spec.fields), *(f.alias for f in tagged.fields)])
    added = []
    number = len(spec.fields)
    for field, alias in zip(tagged.fields, aliases[len(spec.fields) :], strict=True):
        number += 1
        while f"f{number}" in ids:
            number += 1
        added.append(replace(field.field_spec(number), alias=alias))
    return tagged.pdf, replace(spec, fields=(*spec.fields, *added)), tagged.problems
