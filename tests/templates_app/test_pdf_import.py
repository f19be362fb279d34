"""Importing real-world PDFs: fields, pages and rects against what pypdf reads on its own."""

import io
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    TextStringObject,
)

from core.engine.template_spec import Rect
from templates_app.engine.errors import ImportRefused
from templates_app.engine.pdf_import import import_pdf
from templates_app.engine.validation import validate_template_json
from tests.fixtures import FILLABLE_PDFS, PDFS, PLAIN_PDFS
from tests.pdfcheck import poppler_words
from tests.templates_app.conftest import locked_form, small_form

# Our mapping: one template field per widget, except a radio group (one field, one option per
# widget); pushbuttons and signatures carry no data. Terminal-field counts are in SOURCES.md.
EXPECTED_TYPES = {
    "irs-fw9-2018.pdf": {"shortText": 9, "checkbox": 7, "longText": 1, "charList": 5},
    "irs-fw4-2022.pdf": {"shortText": 24, "checkbox": 4, "longText": 1},
    "ca-cra-b300-cannabis-duty.pdf": {"shortText": 705, "charList": 6, "radioGroup": 2},
    "pdflib-fancy-fields.pdf": {"shortText": 12, "checkbox": 4, "radioGroup": 1},
    "libreoffice-form.pdf": {"shortText": 4, "radioGroup": 1, "checkbox": 2, "longText": 1},
    "qpdf-field-types.pdf": {"shortText": 6, "radioGroup": 2, "checkbox": 3},
}


def inherited(annotation, key):
    node = annotation
    while node is not None:
        if key in node:
            return node[key]
        node = node.get("/Parent")
        node = node.get_object() if node is not None else None
    return None


def terminal_of(widget):
    """The field a widget belongs to: itself when it has a /T, else its parent."""
    return widget if "/T" in widget else widget["/Parent"].get_object()


def pypdf_expectation(path):
    """Independently of our importer: (type, page, rect) of every expected template field."""
    reader = PdfReader(path)
    out, radios = [], {}
    for page_index, page in enumerate(reader.pages):
        for ref in page.get("/Annots") or []:
            widget = ref.get_object()
            if widget.get("/Subtype") != "/Widget":
                continue
            kind = inherited(widget, "/FT")
            flags = int(inherited(widget, "/Ff") or 0)
            rect = [float(v) for v in widget["/Rect"]]
            rect = (
                min(rect[0], rect[2]),
                min(rect[1], rect[3]),
                abs(rect[2] - rect[0]),
                abs(rect[3] - rect[1]),
            )
            if kind == "/Sig" or (kind == "/Btn" and flags & (1 << 16)):
                continue
            if kind == "/Btn" and flags & (1 << 15):
                radios.setdefault(terminal_of(widget).indirect_reference.idnum, (page_index, []))[
                    1
                ].append(rect)
                continue
            if kind == "/Btn":
                kind_name = "checkbox"
            elif kind == "/Tx" and flags & (1 << 24) and inherited(widget, "/MaxLen"):
                kind_name = "charList"
            elif kind == "/Tx" and flags & (1 << 12):
                kind_name = "longText"
            else:
                kind_name = "shortText"
            out.append((kind_name, page_index, rect))
    for page_index, rects in radios.values():
        out.append(("radioGroup", page_index, tuple(rects)))
    return out


def close(a, b):
    return all(abs(x - y) <= 1.0 for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("name", FILLABLE_PDFS)
def test_import_matches_pypdf_field_by_field(name: str) -> None:
    imported = import_pdf((PDFS / name).read_bytes())
    fields = imported.spec.fields

    assert dict(Counter(f.type for f in fields)) == EXPECTED_TYPES[name]
    expected = pypdf_expectation(PDFS / name)
    assert len(fields) == len(expected)
    remaining = list(expected)
    for field in fields:
        if field.type == "radioGroup":
            got = sorted((o.rect.x, o.rect.y, o.rect.width, o.rect.height) for o in field.options)
            match = next(
                e
                for e in remaining
                if e[0] == "radioGroup"
                and e[1] == field.page
                and len(e[2]) == len(got)
                and all(close(a, b) for a, b in zip(sorted(e[2]), got, strict=True))
            )
        else:
            got = (field.rect.x, field.rect.y, field.rect.width, field.rect.height)
            match = next(
                e
                for e in remaining
                if e[0] == field.type and e[1] == field.page and close(e[2], got)
            )
        remaining.remove(match)
    assert remaining == []
    assert validate_template_json(imported.spec.to_json()) == []


@pytest.mark.parametrize("name", FILLABLE_PDFS + PLAIN_PDFS)
def test_stored_pdf_has_no_interactive_fields_and_same_pages(name: str) -> None:
    original = PdfReader(PDFS / name)
    imported = import_pdf((PDFS / name).read_bytes())
    cleaned = PdfReader(io.BytesIO(imported.pdf))

    assert "/AcroForm" not in cleaned.trailer["/Root"]
    assert len(cleaned.pages) == len(original.pages) == len(imported.spec.pages)
    for before, after, spec in zip(original.pages, cleaned.pages, imported.spec.pages, strict=True):
        assert not [
            a for a in after.get("/Annots") or [] if a.get_object().get("/Subtype") == "/Widget"
        ]
        assert [float(v) for v in after.mediabox] == pytest.approx(
            [float(v) for v in before.mediabox]
        )
        assert spec.rotate == int(before.get("/Rotate", 0)) % 360
        assert spec.media_box == pytest.approx(tuple(float(v) for v in before.mediabox))


def test_comb_fields_get_one_box_per_character() -> None:
    imported = import_pdf((PDFS / "irs-fw9-2018.pdf").read_bytes())
    combs = [f for f in imported.spec.fields if f.type == "charList"]

    assert sorted(f.max_length for f in combs) == [2, 2, 3, 4, 7]  # SSN 3-2-4, EIN 2-7
    for field in combs:
        assert len(field.boxes) == field.max_length
        assert field.boxes[0].x == pytest.approx(field.rect.x)
        assert field.boxes[-1].right == pytest.approx(field.rect.right)


def test_font_size_alignment_and_names_come_from_the_form() -> None:
    imported = import_pdf((PDFS / "pdflib-fancy-fields.pdf").read_bytes())
    by_alias = {f.alias: f for f in imported.spec.fields}

    last_name = by_alias["lastName"]
    assert last_name.name == "LastName 🛩"
    assert last_name.style.font_size == 12
    assert last_name.style.alignment == "right"
    assert last_name.rotation == 270
    fw9 = import_pdf((PDFS / "irs-fw9-2018.pdf").read_bytes())
    first = fw9.spec.fields[0]
    assert (first.alias, first.name) == ("name", "topmostSubform[0].Page1[0].f1_1[0]")
    assert first.style.font_size == 9
    assert fw9.spec.fields[2].name.startswith(
        "topmostSubform[0].Page1[0].FederalClassification[0].c1_1["
    )


def test_radio_options_are_named_by_their_export_values() -> None:
    imported = import_pdf((PDFS / "qpdf-field-types.pdf").read_bytes())
    radios = [f for f in imported.spec.fields if f.type == "radioGroup"]

    assert [o.id for o in radios[0].options] == ["1", "2", "3"]


def _pdf_with_root_extras(**extras) -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    for key, value in extras.items():
        writer._root_object[NameObject(key)] = value
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def qpdf_check(pdf: bytes, tmp_path: Path) -> str:
    """qpdf's structural check of ``pdf``; fails the test on any error or warning."""
    path = tmp_path / "checked.pdf"
    path.write_bytes(pdf)
    check = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    return check.stdout


def test_widget_paint_added_to_a_single_content_stream_keeps_the_pdf_valid(
    tmp_path: Path,
) -> None:
    # reportlab writes one content stream per page and a checkbox with /MK colours to repaint.
    imported = import_pdf(small_form())

    qpdf_check(imported.pdf, tmp_path)
    contents = PdfReader(io.BytesIO(imported.pdf)).pages[0].raw_get("/Contents")
    assert all(isinstance(part, IndirectObject) for part in contents.get_object())


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-128", "AES-256"])
def test_a_form_locked_only_by_permissions_imports_and_is_stored_decrypted(
    algorithm: str, tmp_path: Path
) -> None:
    locked = locked_form(algorithm=algorithm)
    assert PdfReader(io.BytesIO(locked)).is_encrypted

    imported = import_pdf(locked)

    assert imported.spec == import_pdf(small_form()).spec
    assert [(f.alias, f.type, f.page, f.rect) for f in imported.spec.fields] == [
        ("fullName", "shortText", 0, Rect(72, 680, 240, 20)),
        ("agree", "checkbox", 0, Rect(72, 640, 14, 14)),
    ]
    stored = PdfReader(io.BytesIO(imported.pdf))
    assert not stored.is_encrypted
    assert "/Encrypt" not in stored.trailer
    assert "File is not encrypted" in qpdf_check(imported.pdf, tmp_path)
    assert [w.text for w in poppler_words(imported.pdf)] == [
        "Application",
        "for",
        "a",
        "fishing",
        "permit",
    ]


@pytest.mark.parametrize("algorithm", ["RC4-128", "AES-256"])
def test_a_form_that_needs_a_password_is_refused(algorithm: str) -> None:
    with pytest.raises(ImportRefused) as refused:
        import_pdf(locked_form(user_password="secret", algorithm=algorithm))

    assert refused.value.reason == "encrypted"
    assert str(refused.value) == (
        "The PDF needs a password to open; remove its password protection and upload again."
    )


def test_a_form_encrypted_for_certificate_holders_is_refused() -> None:
    # The same file with a public-key security handler in place of the password one.
    locked = locked_form()
    assert locked.count(b"/Filter /Standard") == 1
    by_certificate = locked.replace(b"/Filter /Standard", b"/Filter /PubSec  ")

    with pytest.raises(ImportRefused) as refused:
        import_pdf(by_certificate)

    assert refused.value.reason == "encrypted"


def test_xfa_only_forms_are_refused() -> None:
    acroform = DictionaryObject(
        {NameObject("/Fields"): ArrayObject(), NameObject("/XFA"): TextStringObject("<xdp:xdp/>")}
    )
    with pytest.raises(ImportRefused) as refused:
        import_pdf(_pdf_with_root_extras(**{"/AcroForm": acroform}))
    assert refused.value.reason == "xfa_only"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"hello, not a pdf", "not_pdf"),
        (b"%PDF-1.7\n" + b"\x00garbage" * 50, "damaged"),
        ((PDFS / "libreoffice-form.pdf").read_bytes()[:2000], "damaged"),
    ],
)
def test_broken_files_are_refused(data: bytes, code: str) -> None:
    with pytest.raises(ImportRefused) as refused:
        import_pdf(data)
    assert refused.value.reason == code
