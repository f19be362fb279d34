"""The verifier against a corpus of signed PDFs written by others (tests/data/pades_corpus), with
the verdict each should get written beside it. Run from the repository root:

    .venv/bin/python bench/verify_corpus.py [--corpus DIR] [--half tune|held|all] [--quiet]

Each ``<name>.pdf`` has a sidecar ``<name>.pdf.json``::

    {"source": "<repo> <path> @ <commit>", "license": "...", "why": "the upstream assertion",
     "expected": {"attacked": bool, "changed": bool|null, "signatures": N|null,
                  "intact": [bool|null per signature], "accepted": bool|null,
                  "indication": "TOTAL-FAILED/FORMAT_FAILURE" (optional)}}

``null`` means upstream asserts nothing about it: left out of that figure.

Every file runs through what ``POST /api/v1/verify`` runs, in this process (not through the
worker pool, so CPU time is the verification's own): ``check_pdf_limits`` with the default
limits, then ``verify_pdf`` with pyHanko's string readers replaced as the verify worker does
(``pdf_strings.install``), no trust roots and nothing fetched (trust is not measured here).

Figures, for the tuning half, the held-out half and all (a file's half is fixed by its name:
the first byte of sha256(file name) even is tune, odd is held; never tune on held files):

- attacks flagged: files expected ``attacked`` that we call changed, or whose signature we read
  as not intact, or that we refuse (never called valid);
- clean files not "changed": files neither attacked nor expected changed, verdict not CHANGED
  (a refusal counts against);
- intact signatures read intact: signatures expected intact, matched by count per file (the
  order of signatures differs between readers);
- files accepted: files expected accepted that are not refused (unreadable or over a limit);
- signature counts right: the number of signatures (document timestamps not counted) as expected;
- CPU seconds per file: the largest, and the file with the most signatures.

Then every mismatch: file, what we said, what was expected.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from esign.engine import pdf_strings  # noqa: E402
from esign.engine.seal_verify import PdfNotVerifiable, verify_pdf  # noqa: E402
from esign.engine.verify_limits import PdfTooComplex, VerifyLimits, check_pdf_limits  # noqa: E402
from esign.engine.verify_report import CHANGED, PdfVerification  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "pades_corpus"


def half_of(name: str) -> str:
    """``tune`` or ``held``, from the file name alone (the corpus's fixed split)."""
    return "tune" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "held"


@dataclass
class Outcome:
    name: str
    half: str
    expected: dict
    report: PdfVerification | None
    refused: str  # why the file was refused; "" when read
    cpu: float

    @property
    def verdict(self) -> str:
        return "refused" if self.report is None else self.report.verdict

    @property
    def intact(self) -> list[bool]:
        return [] if self.report is None else [s.intact for s in self.report.signatures]

    def said(self) -> str:
        if self.report is None:
            return f"refused ({self.refused})"
        parts = []
        for s in self.report.signatures:
            codes = ",".join(
                f.code
                for f in s.findings
                if f.code not in ("not_trusted", "timestamp_not_trusted", "revocation_not_checked")
            )
            indication = "/".join(i for i in s.indication if i)
            parts.append(f"{'intact' if s.intact else 'NOT intact'}[{codes}]{{{indication}}}")
        stamps = [t for t in self.report.document_timestamps if not t.intact]
        tail = f" +{len(stamps)} broken doc timestamps" if stamps else ""
        return f"{self.verdict}: {len(self.report.signatures)} sig(s) " + " ".join(parts) + tail


def run_one(path: Path, root: Path) -> Outcome:
    sidecar = json.loads(path.with_name(path.name + ".json").read_text())
    data = path.read_bytes()
    start = time.process_time()
    report, refused = None, ""
    try:
        check_pdf_limits(data, VerifyLimits())
        report = verify_pdf(data, trust_roots=[])
    except (PdfNotVerifiable, PdfTooComplex) as error:  # what the API answers with a 422
        refused = f"{type(error).__name__}: {error}"
    return Outcome(
        str(path.relative_to(root)),
        half_of(path.name),
        sidecar["expected"],
        report,
        refused,
        time.process_time() - start,
    )


@dataclass
class Tally:
    hits: int = 0
    total: int = 0

    def add(self, ok: bool, weight: int = 1, of: int = 1) -> None:
        self.hits += weight if ok else 0
        self.total += of

    def __str__(self) -> str:
        share = f"{100 * self.hits / self.total:5.1f}%" if self.total else "   -  "
        return f"{self.hits:>4}/{self.total:<4} {share}"


@dataclass
class Figures:
    attacks: Tally = field(default_factory=Tally)
    clean: Tally = field(default_factory=Tally)
    intact: Tally = field(default_factory=Tally)
    accepted: Tally = field(default_factory=Tally)
    counts: Tally = field(default_factory=Tally)
    mismatches: list[str] = field(default_factory=list)
    cpu_max: tuple[float, str] = (0.0, "")
    most: tuple[int, float, str] = (-1, 0.0, "")

    def add(self, o: Outcome) -> None:
        e = o.expected
        wrong: list[str] = []
        if e.get("attacked"):
            flagged = o.report is None or o.verdict == CHANGED or not all(o.intact)
            self.attacks.add(flagged)
            if not flagged:
                wrong.append("attack not flagged")
        elif e.get("changed") is False:
            self.clean.add(o.verdict != CHANGED and o.report is not None)
            if o.verdict == CHANGED or o.report is None:
                wrong.append("clean file called changed" if o.report else "clean file refused")
        expected_intact = sum(1 for i in e.get("intact") or [] if i is True)
        if expected_intact:
            read = min(expected_intact, sum(o.intact))
            self.intact.add(True, read, expected_intact)
            if read < expected_intact:
                wrong.append(f"{expected_intact - read} intact signature(s) read broken")
        if e.get("accepted") is True:
            self.accepted.add(o.report is not None)
            if o.report is None:
                wrong.append("refused")
        if e.get("signatures") is not None:
            ok = o.report is not None and len(o.report.signatures) == e["signatures"]
            self.counts.add(ok)
            if not ok and o.report is not None:
                wrong.append(f"{len(o.report.signatures)} signatures, not {e['signatures']}")
        if wrong:
            self.mismatches.append(
                f"  [{o.half}] {o.name}: {'; '.join(wrong)}\n      we said {o.said()}\n"
                f"      expected {json.dumps(e)}"
            )
        if o.cpu > self.cpu_max[0]:
            self.cpu_max = (o.cpu, o.name)
        n = len(o.report.signatures) if o.report else 0
        if n > self.most[0]:
            self.most = (n, o.cpu, o.name)

    def print(self, title: str) -> None:
        print(f"== {title}")
        print(f"  attacks flagged                 {self.attacks}")
        print(f"  clean files not 'changed'       {self.clean}")
        print(f"  intact signatures read intact   {self.intact}")
        print(f"  files accepted                  {self.accepted}")
        print(f"  signature counts right          {self.counts}")
        print(f"  CPU s per file: max {self.cpu_max[0]:.2f} ({self.cpu_max[1]})")
        print(f"  most signatures: {self.most[0]} in {self.most[2]}, {self.most[1]:.2f} CPU s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--half", choices=("tune", "held", "all"), default="all")
    parser.add_argument("--quiet", action="store_true", help="figures only, no mismatches")
    args = parser.parse_args()
    logging.getLogger("pyhanko").setLevel(logging.CRITICAL)
    logging.getLogger("esign").setLevel(logging.WARNING)
    pdf_strings.install()
    files = sorted(p for p in args.corpus.rglob("*.pdf") if p.with_name(p.name + ".json").exists())
    figures = {"tune": Figures(), "held": Figures(), "all": Figures()}
    for path in files:
        if args.half != "all" and half_of(path.name) != args.half:
            continue
        outcome = run_one(path, args.corpus)
        figures[outcome.half].add(outcome)
        figures["all"].add(outcome)
    print(f"verify_pdf in this process (check_pdf_limits first), {args.corpus}")
    for title in ("tune", "held", "all"):
        if args.half in (title, "all"):
            figures[title].print(title)
    if not args.quiet:
        for title in ("tune", "held"):
            if figures[title].mismatches:
                print(f"\nmismatches ({title}):")
                print("\n".join(figures[title].mismatches))


if __name__ == "__main__":
    main()
