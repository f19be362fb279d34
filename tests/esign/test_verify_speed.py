"""A file of 24 signatures is verified with the work of one file, not of 24 (issue 47, item 9):
4.5 to 5.4 CPU-seconds before, under 1 now. Asserted by what is done, not by the clock: pyHanko's
difference analysis of revision pairs and validation contexts built.
The file is DSS's own lt-short.pdf (24 signatures, 49 revisions, a DSS grown at each).
bench/verify_corpus.py measures the time: 0.6 to 0.7 CPU-seconds on the development machine."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pyhanko.sign.diff_analysis import StandardDiffPolicy
from pyhanko_certvalidator import ValidationContext

from esign.engine.seal_verify import verify_pdf

LT_SHORT = Path(__file__).resolve().parents[1] / "data" / "pades_corpus" / "dss" / "lt-short.pdf"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counts: Counter[str] = Counter()

    def counting(cls: type, name: str) -> None:
        original = getattr(cls, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(cls, name, wrapper)

    counting(StandardDiffPolicy, "apply")
    counting(ValidationContext, "__init__")
    return counts


def test_twenty_four_signatures_share_one_analysis_of_the_file(counted: Counter[str]) -> None:
    """Before: 160 revision-pair analyses by pyHanko and 49 validation contexts (each parsing
    every CRL and OCSP response of the file)."""
    report = verify_pdf(LT_SHORT.read_bytes(), trust_roots=[])

    assert len(report.signatures) == 24
    assert all(s.intact for s in report.signatures)
    # nothing but validation data and signatures followed each: our analysis of each revision,
    # once for the file, says so; pyHanko's pairwise analysis is not needed
    assert counted["apply"] == 0
    assert counted["__init__"] <= 4  # one per role and time, not two per signature
