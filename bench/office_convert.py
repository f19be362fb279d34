"""Seconds to convert Office documents written by others to PDF, one at a time, as the service
converts them (core.engine.office: sniffed, then one confined LibreOffice run per document in a
worker slot whose profile is kept). From the repository root:

    .venv/bin/python bench/office_convert.py [--corpus DIR] [--runs 2] [--by-hand]

The documents are ``--corpus`` (default ``$SHARED_FIXTURES_DIR/office``, else
``../shared/fixtures/office``; SOURCES.tsv there names each one's repository, commit, path and
licence) that SOURCES.tsv marks ``convert``. The very first conversion builds the slot's profile
(a LibreOffice first start); ``--runs 2`` converts each document twice. ``--by-hand`` also
times one plain ``soffice --convert-to pdf`` per document (a fresh profile, no confinement, no
checks), for the cost of ours.

On this machine (2 CPUs, load average about 4.5 from other work), 37 documents (22 DOCX,
8 ODT, 5 RTF, an XLSX, a PPTX): median 1.79 s a document, slowest 6.99 s (the XLSX), 84 s in
all; the second run median 1.74 s; by hand about the same (1.5 to 7 s). A LibreOffice process
per document costs its start (about 1.3 s of the median); the confinement costs nothing
measurable.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.engine.office import OfficeConverter  # noqa: E402
from tests.office.documents import soffice_by_hand  # noqa: E402 - the tests' own run by hand

TIMEOUT = 60.0
MEMORY = 1 << 30


def _corpus() -> Path:
    shared = os.environ.get("SHARED_FIXTURES_DIR")
    if shared:
        return Path(shared) / "office"
    return Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "office"


def _by_hand(path: Path) -> float:
    with tempfile.TemporaryDirectory() as folder:
        start = time.monotonic()
        soffice_by_hand(folder, folder, [str(path)], timeout=TIMEOUT)
        return time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=_corpus())
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--by-hand", action="store_true")
    args = parser.parse_args()
    with (args.corpus / "SOURCES.tsv").open(encoding="utf-8") as sources:
        names = [row["file"] for row in csv.DictReader(sources, delimiter="\t")]
        sources.seek(0)
        notes = {row["file"]: row["note"] for row in csv.DictReader(sources, delimiter="\t")}
    names = [name for name in names if notes[name] == "convert"]
    converter = OfficeConverter(workers=1)
    runs: list[list[float]] = [[] for _ in range(args.runs)]
    try:
        for name in names:
            data = (args.corpus / name).read_bytes()
            seconds = []
            for run in range(args.runs):
                start = time.monotonic()
                result = converter.convert(
                    data, name, timeout=TIMEOUT, memory_limit=MEMORY, max_pages=500
                )
                seconds.append(time.monotonic() - start)
                runs[run].append(seconds[-1])
            hand = f"  by hand {_by_hand(args.corpus / name):5.2f} s" if args.by_hand else ""
            times = " ".join(f"{s:5.2f}" for s in seconds)
            print(f"{name:45} {result.kind.name:4} {result.pages:3} pages  {times} s{hand}")
    finally:
        converter.close()
    for run, seconds in enumerate(runs, start=1):
        print(
            f"run {run}: {len(seconds)} documents, median {statistics.median(seconds):.2f} s, "
            f"slowest {max(seconds):.2f} s, total {sum(seconds):.1f} s"
        )
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
