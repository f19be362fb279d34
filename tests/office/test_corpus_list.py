"""The committed list of the real-world Office documents (tests/office/corpus.tsv, a copy of the
fixture folder's SOURCES.tsv as restored on 2026-12-07): each row says where to fetch the file
again. Not compared with the folder itself: a machine may hold an earlier selection of it."""

from __future__ import annotations

import csv
from pathlib import Path

LISTED = Path(__file__).with_name("corpus.tsv")


def test_every_listed_document_names_where_it_comes_from() -> None:
    with LISTED.open(encoding="utf-8") as listed:
        rows = list(csv.DictReader(listed, delimiter="\t"))

    assert len(rows) == 41
    for row in rows:
        assert row["repo"] in {"apache/tika", "python-openxml/python-docx"}, row
        assert len(row["commit"]) == 40, row
        assert row["file"].endswith("-" + row["path"].rsplit("/", 1)[-1]), row
        assert row["note"] in {"convert", "macros", "encrypted"}, row
