"""Fields found on a flat PDF's pages: where a person would write, with a type and a name.

A page is rendered (``page_raster``) and its rules found as pixel strokes; on a page with text
the printed characters are whited out first, so only rules are left (underscores and box glyphs
such as ☐ stay: they are blanks). A scanned page (no text, a picture) is straightened first. A
turned page (/Rotate) is read as it is seen. The blanks are found from the rules
(``page_shapes``: combs, checkboxes, boxes, cells, lines, tints); the cells of a column headed
"Yes" or "No" are checkboxes with no box printed (``answer_columns``), and the gaps a printed
sentence leaves for a date or a number are blanks (``sentence_blanks``). On a scan, the boxes
and rings its letters make are left out (``scan_marks``), and what needs the page's words (the
Yes/No columns, a row's headings, the rule over a section's heading, the print in a line
number's box) waits until OCR has read them.

Each field's label is the text printed beside it, and the label says its type
(``field_labels``: Signature/Firma, Initials/Iniciales, Date/Fecha, Email, Phone, Amount...).
Aliases are made from labels as the importer makes them (``aliases``), unique in the result; a
field with no label (on a scan, none that OCR read: ``page_ocr``) gets its type's stem and a
number, as the editor names new fields.

Coordinates are the importer's: page default user space, as widget rects. Pure Python: the
caller passes the limits (page count, raster size).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image, ImageDraw

from core.engine.field_types import TEMPLATE_TYPES
from core.engine.template_spec import FieldSpec, PageSpec, Rect, Style, TemplateSpec
from templates_app.engine import page_raster as raster
from templates_app.engine.aliases import identifier_from_phrase, unique_aliases
from templates_app.engine.answer_columns import answer_ticks
from templates_app.engine.comb_rows import (
    dashed_number_cells,
    separator_dashes,
)
from templates_app.engine.errors import ImportRefused
from templates_app.engine.field_labels import (
    BLANK_GLYPHS,
    RunsByHeight,
    TextRun,
    heads_section,
    label_and_type,
    names_a_field,
    split_pointers,
    split_under_headings,
    text_runs,
)
from templates_app.engine.form_geometry import follows, overlap_share
from templates_app.engine.page_ocr import ocr_page
from templates_app.engine.page_shapes import Found, as_number, shapes
from templates_app.engine.scan_marks import without_letters
from templates_app.engine.sentence_blanks import Word, sentence_blanks


class DetectRefused(ImportRefused):
    """A PDF fields cannot be looked for in (``reason``: not_pdf, damaged, no_such_page,
    too_many_pages). It pickles, so a detection worker can send it back as it is. A page that
    does not exist, or more pages than may be looked at, is the request's ``pages``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(reason, message)
        if reason in ("no_such_page", "too_many_pages"):
            self.path = "pages"

    def __reduce__(self) -> tuple[type[DetectRefused], tuple[str, str]]:
        return (type(self), (self.reason, str(self)))


# A cell this narrow (points) that no text names, after another field on its row, is a gutter
# when it is at least SPACER_MIN_HEIGHT tall or ends the row.
SPACER_MAX_WIDTH = 30.0
SPACER_MIN_HEIGHT = 20.0


@dataclass(frozen=True)
class DetectLimits:
    max_pages: int = 50
    dpi: float = 144.0  # pixels per inch of a page's rendering
    max_pixels: int = 12_000_000  # of one page's rendering; a larger page is drawn smaller


def detect_fields(
    data: bytes, *, pages: Sequence[int] | None = None, limits: DetectLimits | None = None
) -> TemplateSpec:
    """The fields found on ``pages`` (0-based; all when None) of the PDF ``data``, as a
    template spec of its pages and the found fields. Raises ImportRefused for a file that is
    not a readable PDF or has more pages than ``limits.max_pages`` to look at (DetectRefused)."""
    limits = limits or DetectLimits()
    if b"%PDF-" not in data[:1024]:
        raise DetectRefused("not_pdf", "The file is not a PDF.")
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise DetectRefused("damaged", "The PDF is damaged or needs a password.") from exc
    try:
        count = len(document)
        wanted = list(range(count)) if pages is None else sorted(set(pages))
        if any(not 0 <= page < count for page in wanted):
            raise DetectRefused("no_such_page", f"The PDF has {count} pages.")
        if len(wanted) > limits.max_pages:
            raise DetectRefused(
                "too_many_pages", f"Fields are looked for on at most {limits.max_pages} pages."
            )
        page_specs = []
        found: list[tuple[int, Found, str, str | None]] = []
        for index in range(count):
            page = document[index]
            page_specs.append(_page_spec(page))
            if index in wanted:
                found.extend((index, *item) for item in _page_fields(page, limits))
            page.close()
    finally:
        document.close()
    return TemplateSpec(pages=tuple(page_specs), fields=tuple(_field_specs(found)))


def _page_spec(page: pdfium.PdfPage) -> PageSpec:
    left, bottom, right, top = page.get_mediabox()
    # Any two opposite corners make the box, as the importer reads it (pdf_import._page_spec).
    x0, y0, x1, y1 = min(left, right), min(bottom, top), max(left, right), max(bottom, top)
    return PageSpec(
        width=x1 - x0, height=y1 - y0, rotate=page.get_rotation() % 360, media_box=(x0, y0, x1, y1)
    )


def _is_scan(page: pdfium.PdfPage, text: pdfium.PdfTextPage) -> bool:
    """No text, and a picture: a scanned page (its rules are pixels of the picture)."""
    if text.count_chars() > 0:
        return False
    return any(True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2))


def _erase_text(
    image: Image.Image, text: pdfium.PdfTextPage, frame: raster.PageFrame
) -> tuple[Image.Image, list[Word]]:
    """``image`` with its printed characters painted white, but for the blanks among them,
    and the words so painted. Neighbouring characters of a line are painted as one box (a
    space apart at most), so a rule drawn between two words is never painted over."""
    out = image.copy()
    draw = ImageDraw.Draw(out)
    boxes: list[list] = []  # left, bottom, right, top and the characters
    current: list | None = None
    # pdfium's calls made directly, into the same four numbers for every character: a tax
    # form's page has thousands, and the wrapper's get_charbox makes new ones each time.
    raw, unicode_of, charbox = text.raw, pdfium_c.FPDFText_GetUnicode, pdfium_c.FPDFText_GetCharBox
    edges = [ctypes.c_double() for _ in range(4)]
    x0, x1, y0, y1 = edges
    for index in range(text.count_chars()):
        char = chr(unicode_of(raw, index) or 32)
        if char.isspace():
            continue
        if char in BLANK_GLYPHS:
            current = None
            continue
        if not charbox(raw, index, *edges):
            continue  # no box for it: nothing to white out
        left, bottom, right, top = x0.value, y0.value, x1.value, y1.value
        if right <= left or top <= bottom:
            continue
        if (
            current is not None
            and abs(current[1] - bottom) <= 0.5 * (top - bottom) + 1
            and current[2] - 0.5 <= left <= current[2] + 0.6 * (top - bottom)
        ):
            current[1], current[3] = min(current[1], bottom), max(current[3], top)
            current[2] = right
            current[4] += char
            continue
        current = [left, bottom, right, top, char]
        boxes.append(current)  # grown in place until the next box
    for left, bottom, right, top, _text in boxes:
        px0, py0, px1, py1 = frame.box_to_pixels(left, bottom, right, top)
        draw.rectangle((px0 - 1, py0 - 1, px1 + 1, py1 + 1), fill=255)
    return out, [Word(*box) for box in boxes]


def _page_fields(page: pdfium.PdfPage, limits: DetectLimits) -> list[tuple[Found, str, str | None]]:
    text = page.get_textpage()
    try:
        scan = _is_scan(page, text)
        width, height = page.get_size()
        scale = limits.dpi / 72
        if width * height * scale * scale > limits.max_pixels:
            scale = math.sqrt(limits.max_pixels / (width * height))
        frame = raster.PageFrame(
            crop=page.get_cropbox(),
            rotation=page.get_rotation() % 360,
            scale=scale,
        )
        # Paths drawn without smoothing: a thin grey rule stays one dark pixel wide instead of
        # two light ones that read as paper.
        image = page.render(
            scale=scale,
            grayscale=True,
            draw_annots=False,
            may_draw_forms=False,
            no_smoothpath=not scan,
        ).to_pil()
        image = image.convert("L")
        # The shapes and labels are read as the page is seen: on a turned page (/Rotate), in
        # the space of its picture, so a rule across the page is a row and a label is left of
        # its box; what is found is turned back into the page's space at the end.
        seen = frame
        if frame.rotation:
            seen = raster.PageFrame(crop=(0.0, 0.0, *page.get_size()), rotation=0, scale=scale)
        blanks: list[Rect] = []
        dashes: list[TextRun] = []
        if scan:
            image, _angle = raster.deskew(image)
            lines: list[TextRun] = []  # read by OCR once the fields are found (below)
            pointers: list[Rect] = []
            rules_image = image
        else:
            printed, arrows = split_pointers(text, text_runs(text))
            lines = [_moved_run(run, frame, seen) for run in printed]
            pointers = [
                _moved_rect(Rect(run.x, run.y, run.right - run.x, 0.7 * run.size), frame, seen)
                for run in arrows
            ]
            rules_image, words = _erase_text(image, text, frame)
            if not frame.rotation:  # the words are in page space; on a turned page, not seen
                blanks = sentence_blanks(words)
            # The dashes between a number's groups are no writing in its blank.
            page_dashes = separator_dashes(printed)
            image = _without_runs(image, page_dashes, frame)
            dashes = [_moved_run(run, frame, seen) for run in page_dashes]
    finally:
        text.close()
    found = shapes(image, rules_image, seen, scan=scan, pointers=pointers)
    found.extend(
        Found("text", blank)
        for blank in blanks
        if not any(overlap_share(blank, item.rect) > 0 for item in found)
    )
    if scan:  # the letters are still there: some make boxes or rings (scan_marks)
        found = without_letters(found, image, seen)
        # Only the lines where a found field's label may be are read (page_ocr); what needs
        # the page's words below waits for them.
        read = ocr_page(image, seen, near=[item.rect for item in found])
        lines = read.runs
        found = [item for item in found if not _printed_in(item, read.inked)]
    runs = RunsByHeight(lines)
    if lines:
        # A text blank with dashes where an SSN's or EIN's groups meet is that number's comb.
        if dashes:
            cells_of = partial(dashed_number_cells, dashes=dashes)
            found = [as_number(item, cells_of) for item in found]
        found = answer_ticks(found, lines)
        ticks = [item.rect for item in found if item.kind == "checkbox"]
        found = [
            replace(item, rect=part)
            for item in found
            for part in (
                split_under_headings(item.rect, runs.near(item.rect), ticks)
                if item.kind == "text"
                else [item.rect]
            )
        ]
    # A cell holding a checkbox is that box's cell (a dependents table's "Adopted" column).
    boxes = [item.rect for item in found if item.kind == "checkbox"]
    found = [item for item in found if item.kind != "text" or not _holds(item.rect, boxes)]
    labelled = [
        (
            item,
            *label_and_type(
                item.kind, item.rect, runs.near(item.rect, item.cell_top), cell_top=item.cell_top
            ),
        )
        for item in found
    ]
    # A line found by the label at its start alone is kept where that label names a field.
    labelled = [
        entry
        for entry in labelled
        if not entry[0].by_label or names_a_field(entry[0].rect, runs.near(entry[0].rect))
    ]
    labelled = _without_spacers(labelled)
    # The rule across the page that opens a section is no line to write on (on a scan, the
    # heading under it is read by OCR: the line under a found field is among those read).
    labelled = [
        (item, label, named)
        for item, label, named in labelled
        if item.kind != "text" or not heads_section(item.rect, runs.near(item.rect))
    ]
    return [(_moved_found(item, seen, frame), label, named) for item, label, named in labelled]


def _holds(rect: Rect, boxes: Sequence[Rect]) -> bool:
    """True when one of ``boxes`` lies inside ``rect`` (nine tenths of it or more)."""
    return any(overlap_share(box, rect) >= 0.9 and box.width < rect.width for box in boxes)


def _printed_in(item: Found, inked: Sequence[Rect]) -> bool:
    """A narrow cell of a scan holding a line of print (its line number, a letter): on a vector
    page the cell's text is known and it is no blank; on a scan the rules' mask reads the
    digit as a wall's dots and wipes it, so the cell looks empty until OCR sees the ink."""
    rect = item.rect
    if item.kind != "text" or rect.width > SPACER_MAX_WIDTH:
        return False
    return any(overlap_share(line, rect) >= 0.8 for line in inked)


def _without_runs(
    image: Image.Image, runs: Sequence[TextRun], frame: raster.PageFrame
) -> Image.Image:
    """``image`` with ``runs`` painted white (a pixel and a point round their glyphs)."""
    if not runs:
        return image
    out = image.copy()
    draw = ImageDraw.Draw(out)
    for run in runs:
        left, top, right, bottom = frame.box_to_pixels(
            run.x - 1, run.y - 1, run.right + 1, run.y + 0.7 * run.size + 1
        )
        draw.rectangle((left - 1, top - 1, right + 1, bottom + 1), fill=255)
    return out


def _without_spacers(
    labelled: list[tuple[Found, str, str | None]],
) -> list[tuple[Found, str, str | None]]:
    """Leaves out the narrow cells no text names that follow another field on its row: the
    gutters between a table's amount columns, and what ends a row after its last field (on
    the tuning half of the corpus, none of the 46 so left out was a field). A narrow cell
    between two one-line fields may be a field of its own (a code, a state) and stays. A
    square cell no text names, as tall as the text cell it follows, is no checkbox either
    (the cents of a table's amount column: none of the 51 so left out on the tuning half)."""
    texts = [item.rect for item, _label, _named in labelled if item.kind == "text"]

    def spacer(item: Found, label: str) -> bool:
        rect = item.rect
        if item.kind == "checkbox" and not label:
            # A square cell of a table's row, as tall as the cell it follows: a column of the
            # table (an amount's cents), not a box to tick.
            return any(follows(rect, other) for other in texts)
        if item.kind != "text" or label or rect.width > SPACER_MAX_WIDTH:
            return False
        if not any(follows(rect, other) for other in texts):
            return False
        return rect.height >= SPACER_MIN_HEIGHT or not any(follows(o, rect) for o in texts)

    return [entry for entry in labelled if not spacer(entry[0], entry[1])]


def _moved_rect(rect: Rect, source: raster.PageFrame, target: raster.PageFrame) -> Rect:
    """``rect`` of ``source``'s space in ``target``'s: the same pixels of the page's picture."""
    if source is target:
        return rect
    x0, y0, x1, y1 = target.box_to_page(*source.box_to_pixels(rect.x, rect.y, rect.right, rect.top))
    return Rect(x0, y0, x1 - x0, y1 - y0)


def _moved_found(item: Found, source: raster.PageFrame, target: raster.PageFrame) -> Found:
    if source is target:
        return item
    return replace(
        item,
        rect=_moved_rect(item.rect, source, target),
        boxes=tuple(_moved_rect(box, source, target) for box in item.boxes),
        cell_top=None,
    )


def _moved_run(run: TextRun, source: raster.PageFrame, target: raster.PageFrame) -> TextRun:
    if source is target:
        return run
    height = run.size * 0.7  # the glyphs' bounds, as text_runs measured them
    rect = _moved_rect(Rect(run.x, run.y, run.right - run.x, height), source, target)
    return TextRun(x=rect.x, y=rect.y, size=rect.height / 0.7, text=run.text, right=rect.right)


def _field_specs(found: Iterable[tuple[int, Found, str, str | None]]) -> list[FieldSpec]:
    specs: list[FieldSpec] = []
    aliases: list[str] = []
    for number, (page, item, label, named_type) in enumerate(found, start=1):
        kind = {"checkbox": "checkbox", "comb": "charList"}.get(
            item.kind, named_type or "shortText"
        )
        rect = item.rect
        spec = FieldSpec(id=f"f{number}", alias="", type=kind, page=page, rect=rect, label=label)
        if kind == "charList":
            box = item.boxes[0]
            size = _font_size(min(rect.height, box.width * 1.2))
            spec = replace(
                spec, max_length=len(item.boxes), boxes=item.boxes, style=Style(font_size=size)
            )
        elif kind not in ("checkbox", "signature", "initial"):
            spec = replace(spec, style=Style(font_size=_font_size(rect.height)))
        phrase_alias = identifier_from_phrase(label) if label else None
        stem = TEMPLATE_TYPES[kind].alias_stem or kind
        # As the importer names a signature field with a generated name: "signature".
        fallback = stem if named_type in ("signature", "initial") else f"{stem}{number}"
        aliases.append(phrase_alias or fallback)
        specs.append(spec)
    return [
        replace(spec, alias=alias)
        for spec, alias in zip(specs, unique_aliases(aliases), strict=True)
    ]


def _font_size(height: float) -> float:
    """The largest whole size (6 to 12 points) whose line fits a box ``height`` points tall."""
    return float(max(6, min(12, math.floor(height * 0.7))))


def without_overlaps(found: Sequence[FieldSpec], existing: Sequence[FieldSpec]) -> list[FieldSpec]:
    """The found fields that do not overlap an existing field of the same page (by more than a
    fifth of the smaller one): what a PDF that has fields is missing."""
    return [
        item
        for item in found
        if not any(
            other.page == item.page and overlap_share(item.rect, other.rect) > 0.2
            for other in existing
        )
    ]
