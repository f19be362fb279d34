"""Office documents for the conversion tests: the real-world ones kept in ../shared/fixtures/office
(SOURCES.tsv names each one's repository, commit, path and licence), the words each one holds
as its own XML says (to look for in the PDF), and hostile documents made here."""

from __future__ import annotations

import csv
import html
import io
import re
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from tests.fixtures import FIXTURES

OFFICE = FIXTURES / "office"
# The real-world documents are fetched into ../shared/fixtures/office by a developer and never
# committed (data fetched from other repositories stays in shared/). Where they are absent (a
# machine whose shared folder holds only the project's own fixtures), the tests that read them
# are skipped, not failed; those that make their documents here still run. tests/office/corpus.tsv
# is the folder's SOURCES.tsv, committed: each row's `path` at `commit` of `repo` restores a file.
HAVE_FIXTURES = (OFFICE / "SOURCES.tsv").is_file()
needs_fixtures = pytest.mark.skipif(
    not HAVE_FIXTURES, reason="no real-world Office documents in ../shared/fixtures/office"
)


def fixture(name: str) -> bytes:
    """A real-world document's bytes (the test is marked needs_fixtures)."""
    return (OFFICE / name).read_bytes()


def fixture_rows() -> list[dict[str, str]]:
    if not HAVE_FIXTURES:
        return []
    with (OFFICE / "SOURCES.tsv").open(encoding="utf-8") as sources:
        return list(csv.DictReader(sources, delimiter="\t"))


def convertible() -> list[str]:
    """The real-world documents that convert (the others are refused on purpose)."""
    return [row["file"] for row in fixture_rows() if row["note"] == "convert"]


def soffice_by_hand(folder: str, outdir: str, paths: list[str], *, timeout: float) -> None:
    """LibreOffice run by hand, as a person would, to compare with the service's conversion: one
    plain soffice --convert-to pdf of ``paths`` into ``outdir``, no limits, no filter options, a
    profile of its own in ``folder``."""
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation={(Path(folder) / 'profile').as_uri()}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            outdir,
            *paths,
        ],
        capture_output=True,
        check=True,
        timeout=timeout,
    )


WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)


def words_of(text: str) -> set[str]:
    return {word.casefold() for word in WORD.findall(text)}


# What each RTF document says, read from it (an RTF parser of our own would be a test to test).
RTF_PHRASES = {
    "tika-testRTF.rtf": ["Test d’indexation Word"],
    "tika-testRTFJapanese.rtf": ["ゾルゲの処刑記録", "古書店で処刑記録見つかる"],
    "tika-testRTFListMicrosoftWord.rtf": ["A short ordered list:", "A short unordered list:"],
    "tika-testRTFVarious.rtf": [
        "This is the header text.",
        "Bold italic underline superscript subscript",
        "Here is a text box",
    ],
    "tika-testRTFWord2010CzechCharacters.rtf": ["Článek týdne", "Svitky od Mrtvého moře"],
}


def source_words(name: str) -> set[str]:
    """The words of a document's body as its XML holds them (RTF: the words of its phrases)."""
    if name.endswith(".rtf"):
        return words_of(" ".join(RTF_PHRASES[name]))
    data = (OFFICE / name).read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        if name.endswith((".odt", ".ods", ".odp")):
            xml = package.read("content.xml").decode("utf-8")
            xml = xml[xml.find("<office:body") :]
            # Elements whose text is not shown as written: changes tracked, comments.
            xml = re.sub(r"<text:tracked-changes.*?</text:tracked-changes>", " ", xml, flags=re.S)
            xml = re.sub(r"<office:annotation>.*?</office:annotation>", " ", xml, flags=re.S)
            # A drawing's title and description: alternative text, not shown.
            xml = re.sub(r"<svg:(title|desc)>.*?</svg:\1>", " ", xml, flags=re.S)
            return words_of(html.unescape(re.sub(r"<[^>]+>", " ", xml)))
        parts = {
            ".docx": ["word/document.xml"],
            ".xlsx": ["xl/sharedStrings.xml"],
            ".pptx": sorted(n for n in package.namelist() if re.match(r"ppt/slides/slide\d+", n)),
        }[Path(name).suffix]
        texts = []
        for part in parts:
            xml = package.read(part).decode("utf-8")
            texts += re.findall(r"<(?:w:t|a:t|t)(?: [^>]*)?>([^<]*)<", xml)
        return words_of(html.unescape(" ".join(texts)))


def pdf_text(pdf: bytes) -> str:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
        file.write(pdf)
        file.flush()
        return subprocess.run(
            ["pdftotext", "-enc", "UTF-8", file.name, "-"], capture_output=True, check=True
        ).stdout.decode("utf-8")


def pdf_words(pdf: bytes) -> set[str]:
    return words_of(pdf_text(pdf))


def pdf_fonts(pdf: bytes) -> list[tuple[str, bool]]:
    """Each font of the PDF (its name without the subset tag) and whether it is embedded, as
    poppler's pdffonts reads them."""
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
        file.write(pdf)
        file.flush()
        lines = (
            subprocess.run(["pdffonts", file.name], capture_output=True, check=True)
            .stdout.decode("utf-8")
            .splitlines()[2:]
        )
    fonts = []
    for line in lines:
        name = line.split()[0]
        # The columns from the right: emb sub uni object-number generation.
        embedded = line.split()[-5] == "yes"
        fonts.append((name.split("+", 1)[-1], embedded))
    return fonts


# --- documents made here ----------------------------------------------------------------------

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
_NAMESPACES = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"'
)


def _write_document(package: zipfile.ZipFile, body: str) -> None:
    """The parts every DOCX here has: the content types, the package's relationships, and the
    main document whose body is ``body``."""
    package.writestr("[Content_Types].xml", _CONTENT_TYPES)
    package.writestr("_rels/.rels", _RELS)
    package.writestr(
        "word/document.xml",
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f"<w:document {_NAMESPACES}><w:body>{body}</w:body></w:document>",
    )


def docx(
    body: str, *, document_rels: str | None = None, extra: dict[str, bytes] | None = None
) -> bytes:
    """A minimal DOCX whose body is ``body`` (WordprocessingML paragraphs)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        _write_document(package, body)
        if document_rels is not None:
            package.writestr(
                "word/_rels/document.xml.rels",
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships '
                'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                f"{document_rels}</Relationships>",
            )
        for name, data in (extra or {}).items():
            package.writestr(name, data)
    return buffer.getvalue()


def paragraph(text: str, *, page_break_after: bool = False) -> str:
    brk = '<w:r><w:br w:type="page"/></w:r>' if page_break_after else ""
    return f"<w:p><w:r><w:t>{text}</w:t></w:r>{brk}</w:p>"


def lease_docx() -> bytes:
    """A short lease, as a person would write one, in Calibri."""
    font = '<w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/></w:rPr>'
    lines = [
        "Residential Lease Agreement",
        "This lease is made between the Landlord and the Tenant named below.",
        "The monthly rent is payable on the first day of each month.",
        "Tenant signature: ____________________",
    ]
    return docx("".join(f"<w:p><w:r>{font}<w:t>{line}</w:t></w:r></w:p>" for line in lines))


def pages_docx(pages: int) -> bytes:
    """A DOCX of ``pages`` pages, each a different sentence and a page break."""
    return docx(
        "".join(
            paragraph(f"Page {n} of a very long document.", page_break_after=n < pages)
            for n in range(1, pages + 1)
        )
    )


def zip_bomb_docx(unpacked: int = 64 * 1_048_576) -> bytes:
    """A DOCX whose one extra part unpacks to ``unpacked`` bytes of zeros (packing ~1000:1),
    written in pieces so the test never holds it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        _write_document(package, paragraph("Bomb"))
        with package.open("word/media/zeros.bin", "w") as part:
            chunk = bytes(1_048_576)
            for _ in range(unpacked // len(chunk)):
                part.write(chunk)
    return buffer.getvalue()


def linked_picture_docx(url: str) -> bytes:
    """A DOCX showing a picture linked (not embedded) from ``url``, and a field that would
    include text from it."""
    drawing = (
        '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/>'
        '<wp:docPr id="1" name="Picture 1"/><a:graphic><a:graphicData '
        'uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>'
        '<pic:nvPicPr><pic:cNvPr id="1" name="linked.png"/><pic:cNvPicPr/></pic:nvPicPr>'
        '<pic:blipFill><a:blip r:link="rIdLinked"/><a:stretch><a:fillRect/></a:stretch>'
        '</pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/>'
        '</a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic>'
        "</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>"
    )
    include = (
        '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText '
        f'xml:space="preserve"> INCLUDETEXT "{url}/included.txt" </w:instrText></w:r><w:r>'
        '<w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>Cached text</w:t></w:r><w:r>'
        '<w:fldChar w:fldCharType="end"/></w:r></w:p>'
    )
    return docx(
        paragraph("A picture from elsewhere") + drawing + include,
        document_rels=(
            '<Relationship Id="rIdLinked" Type="http://schemas.openxmlformats.org/'
            f'officeDocument/2006/relationships/image" Target="{url}/linked.png" '
            'TargetMode="External"/>'
        ),
    )
