"""Fields found on a flat PDF's pages: where a person would write, with a type and a name.

A page is rendered (``page_raster``) and its rules found as pixel strokes; on a page with text
the printed characters are whited out first, so only rules are left (underscores and box glyphs
such as ☐ stay: they are blanks). A scanned page (no text, a picture) is straightened first.
From the rules (``form_geometry``):

- a row of small boxes sharing walls is one ``charList`` field, ``maxLength`` its box count;
- a small square is a ``checkbox``;
- a larger closed box, or a line, with empty space above its bottom edge is a text field: the
  empty band (below a label printed inside a table cell) is the field.

Each field's label is the text printed beside it, and the label says its type
(``field_labels``: Signature/Firma, Initials/Iniciales, Date/Fecha, Email, Phone, Amount...).
Aliases are made
from labels as the importer makes them (``aliases``), unique in the result; a field with no
label (a scan has no text) gets its type's stem and a number, as the editor names new fields.

Coordinates are the importer's: page default user space, as widget rects. Pure Python: the
caller passes the limits (page count, raster size).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image, ImageDraw

from core.engine.field_types import TEMPLATE_TYPES
from core.engine.template_spec import FieldSpec, PageSpec, Rect, Style, TemplateSpec
from templates_app.engine import form_geometry as geometry
from templates_app.engine import page_raster as raster
from templates_app.engine.aliases import identifier_from_phrase, unique_aliases
from templates_app.engine.errors import ImportRefused
from templates_app.engine.field_labels import (
    BLANK_GLYPHS,
    TextRun,
    label_and_type,
    text_runs,
)

UNDERLINE_MIN = 30.0  # points: shorter rules are parts of letters, arrows, ticks
UNDERLINE_FIELD_MAX_HEIGHT = 20.0
FIELD_MIN_HEIGHT = 7.0
# A cell may have a sign ("=", "$", "%") printed at its left and still be a blank.
SIGN_MAX_WIDTH = 16.0
# A label printed inside a cell above its blank is a line or two; more is a cell of text.
LABEL_MAX_HEIGHT = 24.0
RING_MIN_SCAN = 9.0  # points: a radio button on a scan, larger than the letters beside it
FILLED_MIN = 8.0  # points: the smallest side of a field shown by its background colour
RUN_MIN = 5.0  # points: the shortest stroke that can be the side of a checkbox


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


@dataclass(frozen=True)
class DetectLimits:
    max_pages: int = 50
    dpi: float = 144.0  # pixels per inch of a page's rendering
    max_pixels: int = 12_000_000  # of one page's rendering; a larger page is drawn smaller


@dataclass
class _Found:
    kind: str  # "text", "checkbox" or "comb"
    rect: Rect
    boxes: tuple[Rect, ...] = ()
    # Where a label inside the field's own cell would be (the band above an empty band).
    cell_top: float | None = None
    origin: str = ""  # the shape it was found as: comb, box, cell, tint, ring, line


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
        found: list[tuple[int, _Found, str, str | None]] = []
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
) -> Image.Image:
    """``image`` with its printed characters painted white, but for the blanks among them.
    Neighbouring characters of a line are painted as one box (a space apart at most), so a rule
    drawn between two words is never painted over."""
    out = image.copy()
    draw = ImageDraw.Draw(out)
    boxes: list[tuple[float, float, float, float]] = []
    current: list[float] | None = None
    for index in range(text.count_chars()):
        char = chr(pdfium_c.FPDFText_GetUnicode(text.raw, index) or 32)
        if char.isspace():
            continue
        if char in BLANK_GLYPHS:
            current = None
            continue
        left, bottom, right, top = text.get_charbox(index)
        if right <= left or top <= bottom:
            continue
        if (
            current is not None
            and abs(current[1] - bottom) <= 0.5 * (top - bottom) + 1
            and current[2] - 0.5 <= left <= current[2] + 0.6 * (top - bottom)
        ):
            current[1], current[2], current[3] = (
                min(current[1], bottom),
                right,
                max(current[3], top),
            )
            continue
        current = [left, bottom, right, top]
        boxes.append(current)  # type: ignore[arg-type]  # grown in place until the next box
    for left, bottom, right, top in boxes:
        px0, py0, px1, py1 = frame.box_to_pixels(left, bottom, right, top)
        draw.rectangle((px0 - 1, py0 - 1, px1 + 1, py1 + 1), fill=255)
    return out


def _page_fields(
    page: pdfium.PdfPage, limits: DetectLimits
) -> list[tuple[_Found, str, str | None]]:
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
        if scan:
            image, _angle = raster.deskew(image)
            lines: list[TextRun] = []
            rules_image = image
        else:
            lines = [_moved_run(run, frame, seen) for run in text_runs(text)]
            rules_image = _erase_text(image, text, frame)
    finally:
        text.close()
    found = _shapes(image, rules_image, seen, scan=scan)
    return [
        (
            _moved_found(item, seen, frame),
            *label_and_type(item.kind, item.rect, lines, cell_top=item.cell_top),
        )
        for item in found
    ]


def _moved_rect(rect: Rect, source: raster.PageFrame, target: raster.PageFrame) -> Rect:
    """``rect`` of ``source``'s space in ``target``'s: the same pixels of the page's picture."""
    if source is target:
        return rect
    x0, y0, x1, y1 = target.box_to_page(*source.box_to_pixels(rect.x, rect.y, rect.right, rect.top))
    return Rect(x0, y0, x1 - x0, y1 - y0)


def _moved_found(item: _Found, source: raster.PageFrame, target: raster.PageFrame) -> _Found:
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


def _shapes(
    image: Image.Image, rules_image: Image.Image, frame: raster.PageFrame, *, scan: bool
) -> list[_Found]:
    """The blanks of one rendered page, top to bottom: ``image`` as drawn, ``rules_image`` with
    its text whited out (the same picture on a scan). Each kind of shape in turn; a later one
    never takes the place of a field already found."""
    page = _PageShapes(image, rules_image, frame)
    boxes = geometry.closed_boxes(page.hlines, page.vlines)
    page.add_combs(boxes)
    page.add_boxes(boxes)
    page.add_tinted_boxes()
    page.add_rings(scan=scan)
    page.add_lines()
    return sorted(page.found, key=lambda item: (-round(item.rect.top), item.rect.x))


class _PageShapes:
    """One page's rules (in page space), its ink without them, and the fields found so far."""

    def __init__(self, image: Image.Image, rules_image: Image.Image, frame: raster.PageFrame):
        self.frame = frame
        self.scale = scale = frame.scale
        min_run = max(3, round(RUN_MIN * scale))
        max_thickness = max(3, round(2.5 * scale) + 1)
        block = max(4, round(4 * scale))
        self.rules_image = rules_image
        self.rules_mask = raster.clear_filled_areas(raster.ink_mask(rules_image), block)
        self.row_runs = raster.row_runs(self.rules_mask, min_run, max_thickness)
        self.column_runs = raster.column_runs(self.rules_mask, min_run, max_thickness)
        # What is printed besides the rules: tells an empty box from a filled-in one.
        self.ink = raster.erase_runs(raster.ink_mask(image), self.row_runs, self.column_runs)
        self.hlines: list[geometry.HLine] = []
        self.vlines: list[geometry.VLine] = []
        for run in self.row_runs:
            self._add_rule(
                frame.box_to_page(run.start, run.across, run.end + 1, run.across_end + 1)
            )
        for run in self.column_runs:
            self._add_rule(
                frame.box_to_page(run.across, run.start, run.across_end + 1, run.end + 1)
            )
        self.found: list[_Found] = []
        self.taken: list[geometry.Box] = []  # boxes whose bottom rule is no line to write on
        self.empty_boxes: list[geometry.Box] = []  # boxes that are fields, empty as printed

    def _add_rule(self, box: tuple[float, float, float, float]) -> None:
        x0, y0, x1, y1 = box
        if x1 - x0 >= y1 - y0:
            self.hlines.append(geometry.HLine(x0, x1, (y0 + y1) / 2))
        else:
            self.vlines.append(geometry.VLine((x0 + x1) / 2, y0, y1))

    def _pixels(self, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
        left, top, right, bottom = self.frame.box_to_pixels(x0, y0, x1, y1)
        return math.ceil(left), math.ceil(top), math.floor(right), math.floor(bottom)

    def blank_height(self, x0: float, y0: float, x1: float, y1: float) -> float:
        """Points of empty paper above y0, inside the page box, up to y1."""
        rows = raster.blank_rows_from_bottom(self.ink, self._pixels(x0, y0, x1, y1))
        return rows / self.scale

    def blank_width(self, x0: float, y0: float, x1: float, y1: float) -> float:
        """Points of empty paper left of x1, inside the page box, from x0."""
        columns = raster.blank_columns_from_right(self.ink, self._pixels(x0, y0, x1, y1))
        return columns / self.scale

    def overlaps_found(self, rect: Rect) -> bool:
        return any(_overlap_share(rect, other.rect) > 0.3 for other in self.found)

    def add_combs(self, boxes: Sequence[geometry.Box]) -> None:
        """Rows of empty character boxes: one charList each."""
        inset = 1.0
        for row in geometry.combs(boxes):
            if any(
                self.blank_height(b.x0 + inset, b.y0 + inset, b.x1 - inset, b.y1 - inset)
                < 0.8 * (b.height - 2 * inset)
                for b in row
            ):
                continue  # printed in: a table of small cells, not boxes to write in
            self.taken.extend(row)
            rects = tuple(Rect(b.x0, b.y0, b.width, b.height) for b in row)
            union = Rect(row[0].x0, row[0].y0, row[-1].x1 - row[0].x0, row[0].height)
            self.found.append(_Found("comb", union, boxes=rects, origin="comb"))

    def add_boxes(self, boxes: Sequence[geometry.Box]) -> None:
        """Empty squares (checkboxes), and empty boxes and table cells (text fields): the whole
        box, the part right of a sign, or the band below a label printed inside."""
        in_combs = set(self.taken)
        inset = 1.0
        labelled: list[tuple[geometry.Box, _Found]] = []
        for box in boxes:
            if box in in_combs:
                continue
            inner = box.height - 2 * inset
            empty = self.blank_height(
                box.x0 + inset, box.y0 + inset, box.x1 - inset, box.y1 - inset
            )
            whole = Rect(box.x0, box.y0, box.width, box.height)
            if geometry.is_checkbox(box):
                if empty >= 0.8 * inner:
                    self.found.append(_Found("checkbox", whole, origin="box"))
                    self.taken.append(box)
                continue
            if (
                box.width < geometry.BOX_MIN_WIDTH
                or not geometry.BOX_MIN_HEIGHT <= box.height <= geometry.BOX_MAX_HEIGHT
            ):
                continue
            if empty >= inner - 0.5:
                self.found.append(_Found("text", whole, origin="box"))
                self.taken.append(box)
                self.empty_boxes.append(box)
                continue
            right = self.blank_width(box.x0 + inset, box.y0 + inset, box.x1 - inset, box.y1 - inset)
            if (
                box.width - right <= SIGN_MAX_WIDTH
                and right >= geometry.BOX_MIN_WIDTH
                and right * box.height >= empty * box.width
            ):
                # A cell with a sign at its left ("=", "$"): the field is the rest.
                rect = Rect(box.x1 - right - inset, box.y0, right + inset, box.height)
                self.found.append(_Found("text", rect, origin="box"))
                self.taken.append(box)
                self.empty_boxes.append(box)
            elif empty >= max(FIELD_MIN_HEIGHT, 0.3 * inner) and inner - empty <= LABEL_MAX_HEIGHT:
                # A table cell with its label printed at the top: the field is the band below it.
                rect = Rect(box.x0, box.y0, box.width, empty + inset)
                labelled.append((box, _Found("text", rect, cell_top=box.y1, origin="cell")))
        for box, item in labelled:
            if any(
                abs(other.y1 - box.y0) <= geometry.TOLERANCE
                and abs(other.x0 - box.x0) <= geometry.TOLERANCE
                and abs(other.x1 - box.x1) <= geometry.TOLERANCE
                for other in self.empty_boxes
            ):
                continue  # the heading of a table's column: the empty cells below are the fields
            self.found.append(item)
            self.taken.append(box)

    def add_tinted_boxes(self) -> None:
        """Fields shown only by a background colour: even rectangles of tint, empty inside,
        with paper around them (not a piece of a bold letter or of a shaded band)."""
        tint = raster.tint_mask(self.rules_image)
        min_side = max(3, round(FILLED_MIN * self.scale))
        for left, top, right, bottom in raster.filled_boxes(tint, min_side):
            if not raster.paper_around(tint, (left, top, right, bottom), max(2, round(self.scale))):
                continue
            x0, y0, x1, y1 = self.frame.box_to_page(left, top, right, bottom)
            box = geometry.Box(x0, y0, x1, y1)
            rect = Rect(x0, y0, box.width, box.height)
            if self.overlaps_found(rect):
                continue  # the fill inside a ruled box already found
            if geometry.is_checkbox(box):
                self.found.append(_Found("checkbox", rect, origin="tint"))
            elif box.width >= geometry.BOX_MIN_WIDTH and (
                geometry.BOX_MIN_HEIGHT <= box.height <= geometry.BOX_MAX_HEIGHT
            ):
                self.found.append(_Found("text", rect, origin="tint"))
            else:
                continue
            self.taken.append(box)

    def add_rings(self, *, scan: bool) -> None:
        """Radio buttons: small rings. On a scan the letters are still there, so a ring must be
        larger than an "O" of body text."""
        ring_min = RING_MIN_SCAN if scan else geometry.CHECKBOX_MIN
        # Without the long rules (a ring is shorter), whose every row is a run to follow.
        ring_max = round(geometry.CHECKBOX_MAX * self.scale)
        no_rules = raster.erase_runs(
            self.rules_mask,
            [run for run in self.row_runs if run.length > ring_max],
            [run for run in self.column_runs if run.length > ring_max],
        )
        for left, top, right, bottom in raster.small_rings(
            no_rules, round(ring_min * self.scale), ring_max
        ):
            x0, y0, x1, y1 = self.frame.box_to_page(left, top, right, bottom)
            rect = Rect(x0, y0, x1 - x0, y1 - y0)
            if not self.overlaps_found(rect):
                self.found.append(_Found("checkbox", rect, origin="ring"))
                self.taken.append(geometry.Box(x0, y0, x1, y1))

    def add_lines(self) -> None:
        """Lines to write on: the free stretches of each long rule with empty paper above them
        (after a sign printed on the line's start, if there is one)."""
        by_y = sorted(self.hlines, key=lambda line: line.y)
        for line in by_y:
            if line.length < UNDERLINE_MIN:
                continue
            under = [box for box in self.taken if abs(box.y0 - line.y) <= geometry.TOLERANCE]
            for piece in geometry.free_stretches(line, self.vlines, under):
                if piece.length >= UNDERLINE_MIN and not _heads_column(piece, self.empty_boxes):
                    self._add_line(piece, by_y)

    def _add_line(self, piece: geometry.HLine, by_y: Sequence[geometry.HLine]) -> None:
        ceiling = next(
            (
                above.y
                for above in by_y
                if above.y > piece.y + geometry.TOLERANCE
                and above.x0 < piece.x1 - 5
                and above.x1 > piece.x0 + 5
            ),
            piece.y + 40,
        )
        ceiling = min(ceiling, piece.y + 40)
        empty = self.blank_height(piece.x0 + 1, piece.y + 1, piece.x1 - 1, ceiling - 1)
        x0 = piece.x0
        if empty < FIELD_MIN_HEIGHT:
            # A sign on the line's start ("$ ____"): the field is the line after it.
            band = min(ceiling, piece.y + UNDERLINE_FIELD_MAX_HEIGHT) - 1
            right = self.blank_width(piece.x0 + 1, piece.y + 1, piece.x1 - 1, band)
            if piece.length - right > SIGN_MAX_WIDTH or right < geometry.BOX_MIN_WIDTH:
                return
            x0 = piece.x1 - 1 - right
            empty = self.blank_height(x0, piece.y + 1, piece.x1 - 1, ceiling - 1)
            if empty < FIELD_MIN_HEIGHT:
                return
        height = min(empty + 1, UNDERLINE_FIELD_MAX_HEIGHT)
        rect = Rect(x0, piece.y, piece.x1 - x0, height)
        if self.overlaps_found(rect):
            return
        cell_top = ceiling if ceiling - piece.y < 40 else None
        self.found.append(_Found("text", rect, cell_top=cell_top, origin="line"))


def _heads_column(piece: geometry.HLine, empty_boxes: Sequence[geometry.Box]) -> bool:
    """True when ``piece`` is the top edge of an empty cell: the space above it is a table's
    heading, the cells below are the blanks."""
    return any(
        abs(box.y1 - piece.y) <= geometry.TOLERANCE
        and min(box.x1, piece.x1) - max(box.x0, piece.x0) >= 0.5 * piece.length
        for box in empty_boxes
    )


def _overlap_share(a: Rect, b: Rect) -> float:
    """The area a and b share, as a share of the smaller one."""
    width = min(a.right, b.right) - max(a.x, b.x)
    height = min(a.top, b.top) - max(a.y, b.y)
    if width <= 0 or height <= 0:
        return 0.0
    return width * height / max(1e-6, min(a.width * a.height, b.width * b.height))


def _field_specs(found: Iterable[tuple[int, _Found, str, str | None]]) -> list[FieldSpec]:
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
            other.page == item.page and _overlap_share(item.rect, other.rect) > 0.2
            for other in existing
        )
    ]
