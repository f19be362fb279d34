"""Text tags in a Word document: read from its runs before conversion, then placed from the PDF
LibreOffice makes of it, and those the PDF does not show listed.

The document is written here as Word stores one (a tag split over runs of different formatting,
one in a table cell, one in the header, one hidden), converted by LibreOffice headless.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from templates_app.engine.docx_tags import docx_tags, missing_on_pdf
from templates_app.engine.errors import ImportRefused
from templates_app.engine.text_tags import apply_text_tags, find_tags
from tests.pdfcheck import poppler_words

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _run(text: str, props: str = "") -> str:
    return f'<w:r><w:rPr>{props}</w:rPr><w:t xml:space="preserve">{text}</w:t></w:r>'


def _paragraph(*runs: str) -> str:
    return "<w:p>" + "".join(runs) + "</w:p>"


BODY = "".join(
    [
        _paragraph(_run("Tenant: "), _run("{{Tenant Name}}")),
        # Word stores one tag in three runs: formatting changes inside it.
        _paragraph(
            _run("Signed: "), _run("{{Sig"), _run("nature;role=", "<w:b/>"), _run("Tenant}}")
        ),
        "<w:tbl><w:tr><w:tc>"
        + _paragraph(_run("Initials"))
        + "</w:tc><w:tc>"
        + _paragraph(_run("{{initials;type=initial}}"))
        + "</w:tc></w:tr></w:tbl>",
        # Hidden text: Word and LibreOffice do not print it.
        _paragraph(_run("{{secret}}", "<w:vanish/>")),
        _paragraph(_run("Broken: {{x;type=zzz}}")),
    ]
)
HEADER = f"<w:hdr {W}>{_paragraph(_run('Ref. {{reference}}'))}</w:hdr>"
DOCUMENT = f"""<w:document {W} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<w:body>{BODY}<w:sectPr><w:headerReference w:type="default" r:id="rIdHeader"/></w:sectPr></w:body>
</w:document>"""
CONTENT_TYPES = """<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/header1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/>
</Types>"""
RELS = """<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>"""
DOCUMENT_RELS = """<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rIdHeader" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/>
</Relationships>"""


def _docx() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", RELS)
        archive.writestr("word/_rels/document.xml.rels", DOCUMENT_RELS)
        archive.writestr("word/document.xml", DOCUMENT)
        archive.writestr("word/header1.xml", HEADER)
    return buffer.getvalue()


def test_tags_are_read_from_the_runs_as_word_shows_them() -> None:
    tags = docx_tags(_docx())

    assert [(t.part, t.text, t.tag.type if t.tag else t.error) for t in tags] == [
        ("word/document.xml", "{{Tenant Name}}", "shortText"),
        ("word/document.xml", "{{Signature;role=Tenant}}", "signature"),
        ("word/document.xml", "{{initials;type=initial}}", "initial"),
        ("word/document.xml", "{{secret}}", "shortText"),
        ("word/document.xml", "{{x;type=zzz}}", '"zzz" is not a field type.'),
        ("word/header1.xml", "{{reference}}", "shortText"),
    ]


@pytest.mark.parametrize(
    "data",
    [b"not a zip", _docx().replace(b"word/document.xml", b"word/other.xmlxx")],
)
def test_a_file_that_is_no_word_document_is_refused(data: bytes) -> None:
    with pytest.raises(ImportRefused) as refused:
        docx_tags(data)
    assert refused.value.reason == "not_docx"


def test_xml_entities_are_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(
            "word/document.xml",
            '<!DOCTYPE d [<!ENTITY a "aaaa">]><d>&a;&a;</d>',
        )
    with pytest.raises(ImportRefused):
        docx_tags(buffer.getvalue())


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_the_converted_pdf_places_the_tags_and_the_hidden_one_is_said(tmp_path: Path) -> None:
    source = tmp_path / "lease.docx"
    source.write_bytes(_docx())
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                "soffice",
                f"-env:UserInstallation=file://{profile}",
                "--headless",
                "--convert-to",
                "pdf",
                "--outdir",
                str(tmp_path),
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    pdf = (tmp_path / "lease.pdf").read_bytes()

    found, problems = find_tags(pdf)
    missing = missing_on_pdf(docx_tags(_docx()), found)

    assert [tag.text for tag in missing] == ["{{secret}}"]
    assert [(p.page, p.text) for p in problems] == [(0, "{{x;type=zzz}}")]
    tagged = apply_text_tags(pdf)
    # In the order LibreOffice draws them: the header first.
    assert [(f.alias, f.type) for f in tagged.fields] == [
        ("reference", "shortText"),
        ("tenantName", "shortText"),
        ("signature", "signature"),
        ("initials", "initial"),
    ]
    # The field sits where LibreOffice printed the tag (poppler's box, within 2 pt).
    word = next(w for w in poppler_words(pdf) if w.text == "{{initials;type=initial}}")
    (initials,) = [f for f in tagged.fields if f.alias == "initials"]
    assert initials.rect.x == pytest.approx(word.x_min, abs=2)
    assert initials.rect.right == pytest.approx(word.x_max, abs=2)
    assert initials.rect.top == pytest.approx(word.page_height - word.y_min, abs=2)
    assert initials.rect.y == pytest.approx(word.page_height - word.y_max, abs=2)
    assert all("{{" not in w.text for w in poppler_words(tagged.pdf) if "zzz" not in w.text)
