"""How well fields are found on flat PDFs. Run from the repository root:

    .venv/bin/python bench/detect_fields.py [--dpi 150] [--angle 0.5] [--verbose]

The corpus is real fillable forms written by others (../shared/fixtures/pdfs and
tests/data/pdfs). Each is flattened as the importer stores it (``import_pdf``: the widgets and
the AcroForm gone, their backgrounds and borders kept as page content), fields are detected on
the flat copy, and the result is compared with the importer's fields of the original:

- a detected field matches a true one when their rects overlap at IoU >= 0.5 and their types
  agree; precision is matched / detected, recall matched / true (each pair used once);
- type accuracy: of the pairs that overlap at IoU >= 0.5, the share whose types agree.

Types agree by kind: every text-like type (shortText, longText, date, number, email, phone...)
with shortText/longText, charList with charList, checkbox with checkbox and each option of a
radio group (an option is one true field), signature/initial with signature.

The same is done on a scanned-looking copy: each flat page rendered at ``--dpi`` in grey,
turned ``--angle`` degrees, and wrapped as an image-only PDF page of the same size. It also
prints the detection time per page of each copy, and the time of ten pages of the CRA B300.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pypdfium2 as pdfium  # noqa: E402
from PIL import Image  # noqa: E402

from core.engine.template_spec import FieldSpec, Rect, TemplateSpec  # noqa: E402
from templates_app.engine.detect_fields import detect_fields  # noqa: E402
from templates_app.engine.pdf_import import import_pdf  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(os.environ.get("SHARED_FIXTURES_DIR") or ROOT.parent / "shared" / "fixtures")
CORPUS = [
    FIXTURES / "pdfs" / name
    for name in (
        "irs-fw4-2022.pdf",
        "irs-fw9-2018.pdf",
        "ca-cra-b300-cannabis-duty.pdf",
        "libreoffice-form.pdf",
        "pdflib-fancy-fields.pdf",
        "qpdf-field-types.pdf",
    )
] + sorted((ROOT / "tests" / "data" / "pdfs").glob("*.pdf"))

_KINDS = {"charList": "comb", "checkbox": "checkbox", "signature": "signer", "initial": "signer"}


def kind_of(field_type: str) -> str:
    return _KINDS.get(field_type, "text")


@dataclass(frozen=True)
class Item:
    page: int
    rect: Rect
    kind: str


@dataclass
class Score:
    true: int = 0
    found: int = 0
    matched: int = 0
    overlapping: int = 0  # pairs at IoU >= 0.5, whatever their types
    typed: int = 0  # of those, the pairs whose types agree

    def add(self, other: Score) -> None:
        for name in ("true", "found", "matched", "overlapping", "typed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def row(self, name: str) -> str:
        precision = self.matched / self.found if self.found else 0.0
        recall = self.matched / self.true if self.true else 0.0
        accuracy = self.typed / self.overlapping if self.overlapping else 0.0
        return (
            f"{name:34} {self.true:5} {self.found:6} {self.matched:6}"
            f"  {precision:9.2f} {recall:6.2f} {accuracy:8.2f}"
        )


def truth(spec: TemplateSpec) -> list[Item]:
    items = []
    for field in spec.fields:
        if field.type == "radioGroup":
            items.extend(Item(field.page, option.rect, "checkbox") for option in field.options)
        else:
            items.append(Item(field.page, field.rect, kind_of(field.type)))
    return items


def iou(a: Rect, b: Rect) -> float:
    width = min(a.right, b.right) - max(a.x, b.x)
    height = min(a.top, b.top) - max(a.y, b.y)
    if width <= 0 or height <= 0:
        return 0.0
    shared = width * height
    return shared / (a.width * a.height + b.width * b.height - shared)


def _pairs(true: Sequence[Item], found: Sequence[Item], *, typed: bool) -> int:
    """Pairs at IoU >= 0.5 (of one type when ``typed``), each field used once, best first."""
    candidates = sorted(
        (
            (iou(t.rect, f.rect), i, j)
            for i, t in enumerate(true)
            for j, f in enumerate(found)
            if t.page == f.page and (not typed or t.kind == f.kind)
        ),
        reverse=True,
    )
    used_true: set[int] = set()
    used_found: set[int] = set()
    count = 0
    for overlap, i, j in candidates:
        if overlap < 0.5:
            break
        if i in used_true or j in used_found:
            continue
        used_true.add(i)
        used_found.add(j)
        count += 1
    return count


def score(true: Sequence[Item], fields: Sequence[FieldSpec]) -> Score:
    found = [Item(f.page, f.rect, kind_of(f.type)) for f in fields]
    # Type accuracy over the pairs that overlap: pair without types, then count agreeing ones.
    candidates = sorted(
        (
            (iou(t.rect, f.rect), i, j)
            for i, t in enumerate(true)
            for j, f in enumerate(found)
            if t.page == f.page
        ),
        reverse=True,
    )
    used_true: set[int] = set()
    used_found: set[int] = set()
    overlapping = typed = 0
    for overlap, i, j in candidates:
        if overlap < 0.5:
            break
        if i in used_true or j in used_found:
            continue
        used_true.add(i)
        used_found.add(j)
        overlapping += 1
        typed += true[i].kind == found[j].kind
    return Score(
        true=len(true),
        found=len(found),
        matched=_pairs(true, found, typed=True),
        overlapping=overlapping,
        typed=typed,
    )


def scanned_copy(flat: bytes, dpi: float, angle: float) -> bytes:
    """Each page of ``flat`` as a grey picture at ``dpi`` turned ``angle`` degrees, one picture
    per page of the same size: what a scanner gives."""
    document = pdfium.PdfDocument(flat)
    pictures, sizes = [], []
    for page in document:
        image = page.render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
        image = image.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=255)
        pictures.append(image)
        sizes.append(page.get_size())
    document.close()
    out = io.BytesIO()
    pictures[0].save(out, "PDF", save_all=True, append_images=pictures[1:], resolution=dpi)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpi", type=float, default=150)
    parser.add_argument("--angle", type=float, default=0.5)
    parser.add_argument("--verbose", action="store_true", help="List each miss and false hit.")
    args = parser.parse_args()

    header = f"{'document':34} {'true':>5} {'found':>6} {'match':>6}  precision recall typeacc"
    totals = {"vector": Score(), "raster": Score()}
    rows: dict[str, list[str]] = {"vector": [], "raster": []}
    times: dict[str, list[float]] = {"vector": [], "raster": []}
    for path in CORPUS:
        imported = import_pdf(path.read_bytes())
        true = truth(imported.spec)
        copies = {
            "vector": imported.pdf,
            "raster": scanned_copy(imported.pdf, args.dpi, args.angle),
        }
        for name, pdf in copies.items():
            started = time.perf_counter()
            detected = detect_fields(pdf)
            elapsed = time.perf_counter() - started
            times[name].append(elapsed / len(detected.pages))
            result = score(true, detected.fields)
            totals[name].add(result)
            rows[name].append(result.row(path.name))
            if args.verbose and name == "vector":
                _explain(path.name, true, detected.fields)
    # The speed goal: a 10-page form (the CRA B300's first ten flat pages), median of 5 runs.
    ten = import_pdf(CORPUS[2].read_bytes()).pdf
    runs, cpu = [], []
    for _ in range(5):
        started, started_cpu = time.perf_counter(), time.process_time()
        detect_fields(ten, pages=range(10))
        runs.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    ten_pages, ten_cpu = statistics.median(runs), statistics.median(cpu)
    for name in ("vector", "raster"):
        print(
            f"\n{name} pages"
            + (f" ({args.dpi:g} dpi, {args.angle:g}°)" if name == "raster" else "")
        )
        print(header)
        print("\n".join(rows[name]))
        print(totals[name].row("overall"))
        per_page = sum(times[name]) / len(times[name]) * 1000
        print(f"mean detection time per page: {per_page:.0f} ms")
    print(
        f"\n10 vector pages of {CORPUS[2].name}: {ten_pages:.2f} s, {ten_cpu:.2f} s of CPU"
        " (medians of 5; goal < 2 s)"
    )


def _explain(name: str, true: Sequence[Item], fields: Sequence[FieldSpec]) -> None:
    found = [Item(f.page, f.rect, kind_of(f.type)) for f in fields]
    for t in true:
        best = max((iou(t.rect, f.rect) for f in found if f.page == t.page), default=0.0)
        if best < 0.5:
            print(f"  {name} miss p{t.page} {t.kind} {_rect(t.rect)} best IoU {best:.2f}")
    for f, spec in zip(found, fields, strict=True):
        best = max((iou(t.rect, f.rect) for t in true if t.page == f.page), default=0.0)
        if best < 0.5:
            print(f"  {name} false p{f.page} {spec.type} {_rect(f.rect)} {spec.alias}")


def _rect(rect: Rect) -> str:
    return f"({rect.x:.0f},{rect.y:.0f} {rect.width:.0f}x{rect.height:.0f})"


if __name__ == "__main__":
    main()
