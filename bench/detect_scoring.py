"""How detected fields are scored against a fillable form's own fields (bench/detect_fields.py).

A form written by others is the truth: its widgets, as the importer reads them. The detector is
given the page as a person sees it once the form's fields are gone (``strip_widgets``: every
widget annotation and the AcroForm removed, so neither the widgets' values nor their own borders
and backgrounds are drawn; what the form printed on the page stays).

A detected field matches a true one as a user would pair them: their rects overlap at IoU >= 0.3,
or the centre of one lies inside the other, and both are ticked (checkboxes, radio options) or
both written in (every other type). Each field is paired once, the best overlaps first. The same
is counted at IoU >= 0.5 alone. Type accuracy is over the matched pairs: the share whose types
agree by kind (text-like, comb, tick, signer).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pypdf
import pypdfium2 as pdfium
from PIL import Image
from pypdf.generic import ArrayObject, NameObject

from core.engine.template_spec import FieldSpec, Rect, TemplateSpec
from templates_app.engine import page_raster as raster
from templates_app.engine.detect_fields import _erase_text  # the same whiting-out

_KINDS = {"charList": "comb", "checkbox": "tick", "signature": "signer", "initial": "signer"}


def kind_of(field_type: str) -> str:
    """The kind a type is judged by: text (every text-like type), comb, tick or signer."""
    return _KINDS.get(field_type, "text")


def action_of(kind: str) -> str:
    """What a person does to a field of this kind: tick it or write in it."""
    return "tick" if kind == "tick" else "write"


@dataclass(frozen=True)
class Item:
    page: int
    rect: Rect
    kind: str


@dataclass
class Score:
    true: int = 0
    found: int = 0
    matched: int = 0  # IoU >= 0.3 or a centre inside, same action
    matched_strict: int = 0  # IoU >= 0.5, same action
    typed: int = 0  # of the matched pairs, those whose kinds agree
    printed: int = 0  # true fields with a printed cue (``printed``)
    printed_matched: int = 0  # of those, the matched ones
    names: int = 0  # detections named from a label printed beside them
    cpu: float = 0.0  # seconds of CPU detecting
    pages: int = 0
    wrong_types: list[tuple[str, str]] = field(default_factory=list)  # (true kind, found kind)

    def add(self, other: Score) -> None:
        for name in (
            "true",
            "found",
            "matched",
            "matched_strict",
            "typed",
            "printed",
            "printed_matched",
            "names",
            "cpu",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.pages += other.pages
        self.wrong_types.extend(other.wrong_types)

    @property
    def precision(self) -> float:
        return self.matched / self.found if self.found else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.true if self.true else 0.0

    @property
    def type_accuracy(self) -> float:
        return self.typed / self.matched if self.matched else 0.0

    def row(self, name: str) -> str:
        strict_p = self.matched_strict / self.found if self.found else 0.0
        strict_r = self.matched_strict / self.true if self.true else 0.0
        named = self.names / self.found if self.found else 0.0
        per_page = self.cpu / self.pages if self.pages else 0.0
        printed_r = self.printed_matched / self.printed if self.printed else 0.0
        return (
            f"{name:34} {self.true:5} {self.found:6} {self.matched:6}"
            f"  {self.precision:5.2f} {self.recall:5.2f}  {strict_p:5.2f} {strict_r:5.2f}"
            f"  {printed_r:5.2f}  {self.type_accuracy:5.2f} {named:5.2f} {per_page:6.3f}"
        )


HEADER = (
    f"{'document':34} {'true':>5} {'found':>6} {'match':>6}"
    "  P     R      P@.5  R@.5   R:prn  types named cpu/pg"
)


def strip_widgets(pdf: bytes) -> bytes:
    """``pdf`` as a person sees it with its form taken away: no widget annotation (so none of
    their appearances) and no AcroForm; everything the pages print stays."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf)))
    for page in writer.pages:
        if "/Annots" not in page:
            continue
        kept = [
            annot for annot in page["/Annots"] if annot.get_object().get("/Subtype") != "/Widget"
        ]
        if kept:
            page[NameObject("/Annots")] = ArrayObject(kept)
        else:
            del page["/Annots"]
    if "/AcroForm" in writer._root_object:
        del writer._root_object["/AcroForm"]
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def truth(spec: TemplateSpec) -> list[Item]:
    """The true fields to find: one per field, one per option of a radio group."""
    items = []
    for true in spec.fields:
        if true.type == "radioGroup":
            items.extend(Item(true.page, option.rect, "tick") for option in true.options)
        elif true.rect.width > 1 and true.rect.height > 1:  # a hidden widget is nothing to see
            items.append(Item(true.page, true.rect, kind_of(true.type)))
    return items


def printed(flat: bytes, items: Sequence[Item], scale: float = 2.0) -> list[bool]:
    """For each true field, whether the page prints a cue where it is: a rule or a box side
    running along most of its width or height, within 3 points of it (text left out). A field
    without one is shown only by its widget, which the flat page no longer has."""
    document = pdfium.PdfDocument(flat)
    out = [False] * len(items)
    try:
        for number in sorted({item.page for item in items}):
            page = document[number]
            text = page.get_textpage()
            frame = raster.PageFrame(
                crop=page.get_cropbox(), rotation=page.get_rotation() % 360, scale=scale
            )
            image = page.render(
                scale=scale, grayscale=True, draw_annots=False, may_draw_forms=False
            ).to_pil()
            ink = _erase_text(image.convert("L"), text, frame)[0].point(
                lambda v: 255 if v < raster.INK_LEVEL else 0
            )
            pad = round(3 * scale)
            for index, item in enumerate(items):
                if item.page != number:
                    continue
                r = item.rect
                left, top, right, bottom = (
                    round(v) for v in frame.box_to_pixels(r.x, r.y, r.right, r.top)
                )
                left, top = max(0, left), max(0, top)
                right, bottom = min(ink.width, right), min(ink.height, bottom)
                if right <= left or bottom <= top:
                    continue  # off the page's crop box
                rows = ink.crop((left, max(0, top - pad), right, bottom + pad))
                columns = ink.crop((max(0, left - pad), top, right + pad, bottom))
                row_cover = max(rows.resize((1, rows.height), Image.Resampling.BOX).getdata())
                column_cover = max(
                    columns.resize((columns.width, 1), Image.Resampling.BOX).getdata()
                )
                out[index] = max(row_cover, column_cover) >= 0.6 * 255
            text.close()
            page.close()
    finally:
        document.close()
    return out


def iou(a: Rect, b: Rect) -> float:
    width = min(a.right, b.right) - max(a.x, b.x)
    height = min(a.top, b.top) - max(a.y, b.y)
    if width <= 0 or height <= 0:
        return 0.0
    shared = width * height
    return shared / (a.width * a.height + b.width * b.height - shared)


def _centre_inside(a: Rect, b: Rect) -> bool:
    def inside(r: Rect, x: float, y: float) -> bool:
        return r.x <= x <= r.right and r.y <= y <= r.top

    return inside(b, a.x + a.width / 2, a.y + a.height / 2) or inside(
        a, b.x + b.width / 2, b.y + b.height / 2
    )


def loose_match(a: Rect, b: Rect) -> bool:
    return iou(a, b) >= 0.3 or _centre_inside(a, b)


def strict_match(a: Rect, b: Rect) -> bool:
    return iou(a, b) >= 0.5


def pairs(
    true: Sequence[Item], found: Sequence[Item], matches: Callable[[Rect, Rect], bool]
) -> list[tuple[int, int]]:
    """(true, found) index pairs that match, each field used once, the best overlaps first."""
    candidates = sorted(
        (
            (iou(t.rect, f.rect), i, j)
            for i, t in enumerate(true)
            for j, f in enumerate(found)
            if t.page == f.page
            and action_of(t.kind) == action_of(f.kind)
            and matches(t.rect, f.rect)
        ),
        reverse=True,
    )
    used_true: set[int] = set()
    used_found: set[int] = set()
    out = []
    for _overlap, i, j in candidates:
        if i in used_true or j in used_found:
            continue
        used_true.add(i)
        used_found.add(j)
        out.append((i, j))
    return out


def is_label_name(spec: FieldSpec) -> bool:
    """The detection's alias comes from a printed label, not its type's stem and a number."""
    return bool(spec.label) and spec.alias.rstrip("0123456789") not in (
        "text",
        "checkbox",
        "charList",
        "date",
        "signature",
        "initial",
        "email",
        "phone",
        "number",
        "shortText",
    )


def score(
    true: Sequence[Item], fields: Sequence[FieldSpec], cues: Sequence[bool] | None = None
) -> Score:
    """``fields`` scored against ``true``; ``cues`` (from ``printed``) counts recall on the
    true fields the page prints a cue for."""
    found = [Item(f.page, f.rect, kind_of(f.type)) for f in fields]
    loose = pairs(true, found, loose_match)
    cues = cues if cues is not None else [True] * len(true)
    wrong = [(true[i].kind, found[j].kind) for i, j in loose if true[i].kind != found[j].kind]
    return Score(
        true=len(true),
        found=len(found),
        matched=len(loose),
        matched_strict=len(pairs(true, found, strict_match)),
        typed=len(loose) - len(wrong),
        printed=sum(cues),
        printed_matched=sum(cues[i] for i, _j in loose),
        names=sum(is_label_name(spec) for spec in fields),
        wrong_types=wrong,
    )


def scanned_copy(flat: bytes, dpi: float, angle: float) -> bytes:
    """Each page of ``flat`` as a grey picture at ``dpi`` turned ``angle`` degrees, one picture
    per page of the same size: what a scanner gives. Each picture lies where its page's crop
    box was and the page keeps its /Rotate, so what is found on the copy is in the space of the
    form's own fields (a scan of a landscape page, or of a page whose box does not start at 0,
    would otherwise be scored against fields a turn or an offset away)."""
    document = pdfium.PdfDocument(flat)
    pictures = []
    boxes = []
    for page in document:
        boxes.append((page.get_cropbox(), page.get_rotation() % 360))
        page.set_rotation(0)  # drawn as the page's own space, not as it is shown
        image = page.render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
        image = image.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=255)
        pictures.append(image)
    document.close()
    out = io.BytesIO()
    pictures[0].save(out, "PDF", save_all=True, append_images=pictures[1:], resolution=dpi)
    if all(box[:2] == (0.0, 0.0) and not rotation for box, rotation in boxes):
        return out.getvalue()
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(out.getvalue())))
    for page, ((x0, y0, x1, y1), rotation) in zip(writer.pages, boxes, strict=True):
        page.add_transformation(pypdf.Transformation().translate(x0, y0))
        page.mediabox = pypdf.generic.RectangleObject((x0, y0, x1, y1))
        if rotation:
            page.rotate(rotation)
    moved = io.BytesIO()
    writer.write(moved)
    return moved.getvalue()
