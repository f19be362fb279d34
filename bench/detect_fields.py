"""How well fields are found on flat PDFs, on forms written by others. From the repository root:

    .venv/bin/python bench/detect_fields.py [--half held|tune|seen|all] [--scans] [--names 40]

The development corpus is ``bench/detect_corpus.tsv``: real fillable forms fetched from public
repositories (each row names its repository, commit, path and licence), disjoint from the forms
the detector was first written around. It was split once, by file, into a ``tune`` half (rules
are tried on it) and a ``held`` half (judged only); ``seen`` is the older set the detector was
first tuned on (``../shared/fixtures/pdfs`` and ``tests/data/pdfs``). A form whose fields are
shown only by the widgets' own borders (under half of them with a printed rule or box at their
edges: the ``printed`` column) is listed as ``shapeless`` and not scored: without its widgets
nothing on the page says where to write. The PDFs are read from
``--corpus`` (default ``$SHARED_FIXTURES_DIR/forms-dev``, else ``../shared/fixtures/forms-dev``).

Each form is stripped of its fields as a person would see the page without them
(``detect_scoring.strip_widgets``), fields are detected on that, and the result is scored
against the form's own fields as ``detect_scoring`` says (a match at IoU >= 0.3 or a centre
inside, tick vs write; IoU >= 0.5 reported too; type accuracy by kind; the share of detections
named from a printed label). ``--scans`` does the same on a scanned-looking copy of each page
(150 dpi grey, turned 0.5 degrees, image-only). Each form is detected in a worker process of its
own, as the service does; the CPU seconds per page and the largest worker's peak memory print
at the end.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import resource
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pypdfium2 as pdfium

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.detect_scoring import (  # noqa: E402
    HEADER,
    Score,
    iou,
    kind_of,
    printed,
    scanned_copy,
    score,
    strip_widgets,
    truth,
)
from core.engine.template_spec import FieldSpec  # noqa: E402
from templates_app.engine.detect_fields import detect_fields  # noqa: E402
from templates_app.engine.field_labels import text_runs  # noqa: E402
from templates_app.engine.pdf_import import import_pdf  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(os.environ.get("SHARED_FIXTURES_DIR") or ROOT.parent / "shared" / "fixtures")
LIST = ROOT / "bench" / "detect_corpus.tsv"
SEEN = [
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


def corpus(half: str, folder: Path) -> list[Path]:
    if half == "seen":
        return SEEN
    with LIST.open(newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    names = [row["file"] for row in rows if half == "all" or row["half"] == half]
    missing = [name for name in names if not (folder / name).exists()]
    if missing:
        print(f"{len(missing)} of {len(names)} files are not in {folder}; see {LIST.name}")
    return [folder / name for name in names if name not in missing]


def run_one(path: Path, scans: bool, names: int, verbose: bool = False) -> dict:
    """One form, in a worker: its scores, and a sample of its detections' names (with
    ``verbose``, its misses and false hits, each with the texts printed around it)."""
    imported = import_pdf(path.read_bytes())
    true = truth(imported.spec)
    flat = strip_widgets(path.read_bytes())
    cues = printed(flat, true)
    out: dict = {"name": path.name}
    copies = {"vector": flat}
    if scans:
        copies["scan"] = scanned_copy(flat, 150, 0.5)
    for copy, pdf in copies.items():
        started = time.process_time()
        detected = detect_fields(pdf, pages=sorted({i.page for i in true}) or None)
        result = score(true, detected.fields, cues)
        result.cpu = time.process_time() - started
        result.pages = len({i.page for i in true}) or len(detected.pages)
        out[copy] = result
        if copy == "vector":
            out["misses"] = _misses(true, detected.fields, cues, flat if verbose else None)
            sample = random.Random(path.name).sample(
                list(detected.fields), min(names, len(detected.fields))
            )
            out["names"] = [(f.alias, f.type, f.label) for f in sample]
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _misses(
    true: Sequence, fields: Sequence[FieldSpec], cues: Sequence[bool], flat: bytes | None
) -> list[str]:
    runs = _page_runs(flat, {t.page for t in true} | {f.page for f in fields}) if flat else {}
    lines = []
    for t, cue in zip(true, cues, strict=True):
        near = [(iou(t.rect, f.rect), f) for f in fields if f.page == t.page]
        best, closest = max(near, key=lambda pair: pair[0], default=(0.0, None))
        if best < 0.3:
            shown = "printed" if cue else "unprinted"
            under = f" in {_rect(closest.rect)}" if closest is not None and best > 0 else ""
            lines.append(
                f"miss p{t.page} {t.kind} {_rect(t.rect)} best IoU {best:.2f}{under} {shown}"
                + _around(t.rect, runs.get(t.page, []))
            )
    for f in fields:
        best = max((iou(t.rect, f.rect) for t in true if t.page == f.page), default=0.0)
        if best < 0.3:
            lines.append(
                f"false p{f.page} {kind_of(f.type)} {_rect(f.rect)} {f.alias}"
                + _around(f.rect, runs.get(f.page, []))
            )
    return lines


def _page_runs(flat: bytes, pages: set[int]) -> dict[int, list]:
    """The text runs of the pages asked for, as detection reads them (page space)."""
    document = pdfium.PdfDocument(flat)
    out = {}
    try:
        for number in sorted(pages):
            text = document[number].get_textpage()
            out[number] = text_runs(text)
            text.close()
    finally:
        document.close()
    return out


def _around(rect, runs: Sequence) -> str:
    """The texts printed right, left, above and below ``rect`` (a few points off), to sort the
    misses by what the page shows around them."""

    def row(run) -> bool:
        return rect.y - 3 <= run.y <= rect.top + 2

    def column(run) -> bool:
        return run.x < rect.right and run.end > rect.x

    sides = {
        "R": [r for r in runs if row(r) and 0 <= r.x - rect.right <= 24],
        "L": [r for r in runs if row(r) and 0 <= rect.x - r.end <= 40],
        "A": [r for r in runs if column(r) and 0 <= r.y - rect.top <= 16],
        "B": [r for r in runs if column(r) and 0 <= rect.y - (r.y + r.size * 0.7) <= 16],
    }
    parts = [
        f"{side}:{' | '.join(r.text[:24] for r in found[:3])!r}"
        for side, found in sides.items()
        if found
    ]
    return "  " + " ".join(parts) if parts else ""


def _rect(rect) -> str:
    return f"({rect.x:.0f},{rect.y:.0f} {rect.width:.0f}x{rect.height:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("held", "tune", "seen", "all"), default="held")
    parser.add_argument("--corpus", type=Path, default=FIXTURES / "forms-dev")
    parser.add_argument("--scans", action="store_true", help="Score scanned copies too.")
    parser.add_argument("--names", type=int, default=0, help="Names to sample per form.")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--verbose", action="store_true", help="List each miss and false hit.")
    parser.add_argument("--only", help="Only the forms whose file name contains this.")
    parser.add_argument(
        "--warm",
        action="store_true",
        help="Keep each worker for the next forms, as the service's pool does (times without "
        "the per-process start; the peak is then the largest over several forms).",
    )
    args = parser.parse_args()

    paths = corpus(args.half, args.corpus)
    if args.only:
        paths = [p for p in paths if args.only in p.name]
    totals = {"vector": Score(), "scan": Score()}
    rows: dict[str, list[str]] = {"vector": [], "scan": []}
    peak = 0.0
    sample: list[tuple[str, str, str]] = []
    # A fresh worker per form: its peak memory is that form's, as in the service's pool.
    with ProcessPoolExecutor(args.jobs, max_tasks_per_child=None if args.warm else 1) as pool:
        futures = [
            pool.submit(run_one, path, args.scans, args.names, args.verbose) for path in paths
        ]
        for future in futures:
            result = future.result()
            peak = max(peak, result["peak_mb"])
            sample.extend(result.get("names", []))
            for copy in ("vector", "scan"):
                if copy in result:
                    totals[copy].add(result[copy])
                    rows[copy].append(result[copy].row(result["name"][:34]))
            if args.verbose:
                print("\n".join(f"  {result['name']} {line}" for line in result["misses"]))
    for copy in ("vector", "scan") if args.scans else ("vector",):
        print(f"\n{copy} pages, {args.half} half ({len(paths)} forms)")
        print(HEADER)
        print("\n".join(rows[copy]))
        print(totals[copy].row("overall"))
        wrong: dict[tuple[str, str], int] = {}
        for pair in totals[copy].wrong_types:
            wrong[pair] = wrong.get(pair, 0) + 1
        print("wrong kinds (true -> found):", dict(sorted(wrong.items(), key=lambda kv: -kv[1])))
    print(f"\nlargest worker peak: {peak:.0f} MB")
    if sample:
        print(f"\nnames ({len(sample)} sampled detections: alias, type, label):")
        for alias, kind, label in sample:
            print(f"  {alias:32} {kind:10} {label[:60]!r}")


if __name__ == "__main__":
    main()
