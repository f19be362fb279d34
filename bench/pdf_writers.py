"""The floor cost of each PDF writer we considered for fill output. Run from the repository root:

    .venv/bin/python bench/pdf_writers.py

For each base (the 30-field form of bench/fill.py, the W-9 and the 13-page CRA B300 from
../shared/fixtures), it times opening the file and writing it back with one new page dictionary
per page (what every fill does at least): pikepdf (qpdf, whole file), our incremental update
(core.engine.pdf.edit: qpdf reads and serializes the changed objects, which are appended),
pypdf's incremental mode (only changed objects appended) and pypdf's full rewrite. Medians of
20 runs, in milliseconds.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pikepdf  # noqa: E402
from pypdf import PdfReader, PdfWriter  # noqa: E402
from pypdf.generic import NameObject, NumberObject  # noqa: E402

from bench._server import summary, timings  # noqa: E402
from bench.fill import thirty_field_form  # noqa: E402
from core.engine.pdf import IncrementalUpdate, open_for_edit  # noqa: E402

FIXTURES = Path(
    os.environ.get("SHARED_FIXTURES_DIR", Path(__file__).resolve().parents[2] / "shared/fixtures")
)


def with_pikepdf(data: bytes) -> bytes:
    pdf = pikepdf.open(io.BytesIO(data))
    for page in pdf.pages:
        page.obj.StructParents = 0  # a changed page dictionary, as a fill makes
    out = io.BytesIO()
    pdf.save(out, stream_decode_level=pikepdf.StreamDecodeLevel.none, fix_metadata_version=False)
    return out.getvalue()


def with_our_update(data: bytes) -> bytes:
    edit = open_for_edit(data)
    assert isinstance(edit, IncrementalUpdate)
    for page in edit.pdf.pages:
        edit.changed(page.obj)
        page.obj.StructParents = 0
    return edit.save()


def with_pypdf_incremental(data: bytes) -> bytes:
    writer = PdfWriter(io.BytesIO(data), incremental=True)
    for page in writer.pages:
        page[NameObject("/StructParents")] = NumberObject(0)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def with_pypdf_rewrite(data: bytes) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    for page in writer.pages:
        page[NameObject("/StructParents")] = NumberObject(0)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def main() -> None:
    bases = {
        "30-field form (1 page)": thirty_field_form(),
        "IRS W-9 (6 pages)": (FIXTURES / "pdfs/irs-fw9-2018.pdf").read_bytes(),
        "CRA B300 (13 pages)": (FIXTURES / "pdfs/ca-cra-b300-cannabis-duty.pdf").read_bytes(),
    }
    writers = {
        "pikepdf": with_pikepdf,
        "our update": with_our_update,
        "pypdf incremental": with_pypdf_incremental,
        "pypdf rewrite": with_pypdf_rewrite,
    }
    print(f"{'base':26}" + "".join(f"{name:>20}" for name in writers))
    for label, data in bases.items():
        medians = [
            summary(timings(lambda w=w, d=data: w(d), repeat=20))[0] for w in writers.values()
        ]
        print(f"{label:26}" + "".join(f"{m:18.1f}ms" for m in medians))


if __name__ == "__main__":
    main()
