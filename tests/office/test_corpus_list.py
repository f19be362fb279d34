"""The committed list of the real-world Office documents (tests/office/corpus.tsv) is the one the
fixture folder holds, so a machine without them can fetch the same 41 files again."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.office.documents import OFFICE, needs_fixtures

LISTED = Path(__file__).with_name("corpus.tsv")


@needs_fixtures
def test_the_committed_list_is_the_fixture_folders() -> None:
    assert (OFFICE / "SOURCES.tsv").read_text(encoding="utf-8") == LISTED.read_text(
        encoding="utf-8"
    )


def test_every_listed_document_names_where_it_comes_from() -> None:
    with LISTED.open(encoding="utf-8") as listed:
        rows = list(csv.DictReader(listed, delimiter="\t"))

    assert len(rows) == 41
    for row in rows:
        assert row["repo"] in {"apache/tika", "python-openxml/python-docx"}, row
        assert len(row["commit"]) == 40, row
        assert row["file"].endswith("-" + row["path"].rsplit("/", 1)[-1]), row
        assert row["note"] in {"convert", "macros", "encrypted"}, row
