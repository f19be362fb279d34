"""Filled PDFs as incremental updates of the template (core/engine/pdf/edit.py).

Every real form of ../shared/fixtures, flat and interactive: the output is the stored base byte
for byte with one update appended, passes the structural check (qpdf and four readers), shows
the same pixels as the whole-file rewrite on every page and reads back the same field values.
Where an update is not sound (an encrypted or repaired base), the output is written whole.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pikepdf
import pytest
from django.test import override_settings
from PIL import ImageChops
from pypdf import PdfReader

from accounts.models import Organization
from core.engine.pdf import IncrementalUpdate, Rewrite, open_for_edit
from core.engine.template_spec import TemplateSpec
from fill.engine import FillContext, fill_pdf, parse_fill_request
from templates_app.engine.pdf_import import import_pdf
from templates_app.services import template_create_from_pdf, version_pdf, working_version
from tests.fill.test_base_shapes import SHAPES, make_base, spec_for
from tests.fill.test_fixture_forms import data_for
from tests.fixtures import FILLABLE_PDFS, PDFS
from tests.pdfcheck import render
from tests.pdfsound import assert_sound, qpdf_check

OBJECT = re.compile(rb"(?m)^(\d+) (\d+) obj\b")
Imported = dict[str, tuple[bytes, TemplateSpec]]


@pytest.fixture(scope="module")
def imported() -> Imported:
    """Each fixture form imported once: its stored base and spec."""
    done: Imported = {}
    for name in FILLABLE_PDFS:
        result = import_pdf((PDFS / name).read_bytes())
        done[name] = (result.pdf, result.spec)
    return done


def last_section_is_a_stream(pdf: bytes) -> bool:
    offset = int(pdf[pdf.rindex(b"startxref") + 9 :].split()[0])
    return re.match(rb"\d+\s+\d+\s+obj", pdf[offset : offset + 40]) is not None


def field_values(pdf: bytes) -> dict[str, str]:
    found = PdfReader(io.BytesIO(pdf)).get_fields() or {}
    return {name: str(field.get("/V")) for name, field in found.items()}


def assert_same_pixels(pdf: bytes, other: bytes, pages: int) -> None:
    for page in range(pages):
        difference = ImageChops.difference(render(pdf, page, dpi=40), render(other, page, dpi=40))
        assert difference.getbbox() is None, f"page {page + 1} differs"


@pytest.mark.parametrize("interactive", [False, True], ids=["flat", "interactive"])
@pytest.mark.parametrize("name", FILLABLE_PDFS)
def test_a_real_form_fills_into_an_update_that_matches_the_rewrite(
    name: str, interactive: bool, context: FillContext, imported: Imported
) -> None:
    base, spec = imported[name]
    data, expected = data_for(spec)
    request = parse_fill_request(
        {"data": data, "useInteractiveFields": interactive, "title": "Filled"}, max_documents=1
    )
    update = fill_pdf(template_pdf=base, spec=spec, request=request, context=context)
    whole = fill_pdf(
        template_pdf=base, spec=spec, request=request, context=replace(context, incremental=False)
    )

    assert update[: len(base)] == base  # the template's bytes, untouched
    assert update.count(b"startxref") == base.count(b"startxref") + 1
    assert not whole.startswith(base)
    assert last_section_is_a_stream(update) == last_section_is_a_stream(base)
    assert_sound(update, template=base)
    assert_same_pixels(update, whole, len(spec.pages))
    metadata = PdfReader(io.BytesIO(update)).metadata
    assert metadata is not None
    assert metadata.title == "Filled"
    values = field_values(update)
    assert values == field_values(whole)
    if interactive:
        for alias, text in expected.items():
            assert values[alias] == text, alias
        with pikepdf.open(io.BytesIO(update)) as pdf:
            assert len(pdf.Root.AcroForm.Fields) == len(values)
    else:
        assert values == {}


def test_the_update_rewrites_only_the_pages_the_catalog_and_the_information(
    context: FillContext, imported: Imported
) -> None:
    base, spec = imported["irs-fw9-2018.pdf"]
    data, _ = data_for(spec)
    request = parse_fill_request({"data": data}, max_documents=1)
    update = fill_pdf(template_pdf=base, spec=spec, request=request, context=context)

    with pikepdf.open(io.BytesIO(base)) as original:
        size = int(original.trailer.Size)
        allowed = {page.obj.objgen for page in original.pages}
        allowed |= {original.Root.objgen, original.trailer.Info.objgen}
    appended = {(int(n), int(g)) for n, g in OBJECT.findall(update[len(base) :])}
    rewritten = {objgen for objgen in appended if objgen[0] < size}
    assert rewritten == allowed
    assert all(objgen[1] == 0 for objgen in appended - rewritten)


def test_a_whole_pdf_repeat_is_an_update_too(context: FillContext, imported: Imported) -> None:
    base, spec = imported["irs-fw9-2018.pdf"]
    data, _ = data_for(spec)
    request = parse_fill_request({"data": [data, data, data]}, max_documents=3)
    update = fill_pdf(template_pdf=base, spec=spec, request=request, context=context)
    whole = fill_pdf(
        template_pdf=base, spec=spec, request=request, context=replace(context, incremental=False)
    )

    assert update.startswith(base)
    assert_sound(update, template=base)
    assert len(PdfReader(io.BytesIO(update)).pages) == 3 * len(spec.pages)
    assert_same_pixels(update, whole, 3 * len(spec.pages))


EXPECTED_EDITOR = {
    # Encrypted: appended objects would need the file's key; the output is written decrypted.
    "encrypted-empty-user-password": Rewrite,
    # qpdf warned while reading them (a rebuilt xref table; pypdf's update lacks the xref
    # stream's own entry): repaired files are written whole.
    "broken-xref-table": Rewrite,
    "incremental-update": Rewrite,
}


@pytest.mark.parametrize("shape", SHAPES)
def test_each_base_shape_is_updated_only_where_that_is_sound(
    shape: str, context: FillContext
) -> None:
    base = make_base(shape)
    expected = EXPECTED_EDITOR.get(shape, IncrementalUpdate)
    assert isinstance(open_for_edit(base), expected)

    request = parse_fill_request(
        {"useInteractiveFields": True, "data": {"name0": "Alpha", "agree1": True}},
        max_documents=1,
    )
    pdf = fill_pdf(template_pdf=base, spec=spec_for(base), request=request, context=context)
    assert pdf.startswith(base) == (expected is IncrementalUpdate)
    assert_sound(pdf, template=base)
    assert field_values(pdf)["name0"] == "Alpha"
    # What every shape's template looks like once imported (stored by qpdf) is updated.
    stored = import_pdf(make_base(shape, form=True)).pdf
    assert isinstance(open_for_edit(stored), IncrementalUpdate)


def hybrid(data: bytes) -> bytes:
    """``data`` (one classic xref table) with a hybrid-reference update (ISO 32000-1, 7.5.8.4):
    a new version of the pages' font, Courier instead of Helvetica, in an object stream that
    only the update's /XRefStm locates (its table leaves the font out): a reader that ignores
    /XRefStm, or loses it down the /Prev chain, draws Helvetica."""
    with pikepdf.open(io.BytesIO(data)) as pdf:
        font = pdf.pages[0].Resources.Font.F1
        number = font.objgen[0]
        font_text = bytes(font.unparse(resolved=True)).replace(b"/Helvetica", b"/Courier")
        assert b"/Courier" in font_text
        size, root, info = int(pdf.trailer.Size), pdf.Root.objgen[0], pdf.trailer.Info.objgen[0]
    previous = int(data[data.rindex(b"startxref") + 9 :].split()[0])
    out = bytearray(data)
    header = b"%d 0 " % number
    stream_at = len(out)
    out += b"%d 0 obj\n<< /Type /ObjStm /N 1 /First %d /Length %d >>\nstream\n" % (
        size,
        len(header),
        len(header) + len(font_text),
    )
    out += header + font_text + b"\nendstream\nendobj\n"
    xref_stream_at = len(out)
    rows = b"\x02" + size.to_bytes(4, "big") + (0).to_bytes(2, "big")
    out += b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Index [%d 1] /Length %d >>\n" % (
        size + 1,
        size + 2,
        number,
        len(rows),
    )
    out += b"stream\n" + rows + b"\nendstream\nendobj\n"
    table_at = len(out)
    out += b"xref\n%d 2\n%010d 00000 n \n%010d 00000 n \n" % (size, stream_at, xref_stream_at)
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R /Prev %d /XRefStm %d >>\n" % (
        size + 2,
        root,
        info,
        previous,
        xref_stream_at,
    )
    out += b"startxref\n%d\n%%%%EOF\n" % table_at
    return bytes(out)


def test_a_hybrid_reference_file_is_updated_with_a_table(context: FillContext) -> None:
    base = hybrid(make_base("contents-reference"))
    assert qpdf_check(base).warnings == ()
    assert isinstance(open_for_edit(base), IncrementalUpdate)
    request = parse_fill_request({"data": {"name0": "Hybrid"}}, max_documents=1)
    update = fill_pdf(template_pdf=base, spec=spec_for(base), request=request, context=context)
    whole = fill_pdf(
        template_pdf=base,
        spec=spec_for(base),
        request=request,
        context=replace(context, incremental=False),
    )

    assert update.startswith(base)
    assert not last_section_is_a_stream(update)
    assert_sound(update, template=base)
    texts = [page.extract_text() for page in PdfReader(io.BytesIO(update)).pages]
    assert "Base page one" in texts[0]
    assert "Hybrid" in texts[0]
    with pikepdf.open(io.BytesIO(update)) as pdf:
        assert pdf.pages[0].Resources.Font.F1.BaseFont == "/Courier"
    # Poppler draws the base's text in the font only /XRefStm finds, as in qpdf's rewrite.
    assert_same_pixels(update, whole, 2)


def test_damage_found_while_filling_gives_a_whole_file(context: FillContext) -> None:
    """A content stream whose /Length is wrong: qpdf opens the file without a warning and
    repairs the stream only when the fill reads it, so the update is given up for a rewrite."""
    base = make_base("contents-reference")
    with pikepdf.open(io.BytesIO(base)) as pdf:
        content = pdf.pages[0].obj.Contents
        number, generation = content.objgen
    found = re.compile(rb"/Length (\d+)").search(
        base, base.index(b"%d %d obj" % (number, generation))
    )
    assert found is not None
    length = int(found[1])
    wrong = length + 1 if len(str(length + 1)) == len(found[1]) else length - 1
    # As many digits as before: every offset of the xref table stays right.
    damaged = base[: found.start(1)] + str(wrong).encode() + base[found.end(1) :]
    assert len(damaged) == len(base)
    with pikepdf.open(io.BytesIO(damaged)) as pdf:
        assert pdf.get_warnings() == []  # nothing seen on opening
    assert isinstance(open_for_edit(damaged), IncrementalUpdate)

    request = parse_fill_request({"data": {"name0": "Repaired"}}, max_documents=1)
    filled = fill_pdf(
        template_pdf=damaged, spec=spec_for(damaged), request=request, context=context
    )
    assert not filled.startswith(damaged)
    assert_sound(filled)
    assert "Repaired" in PdfReader(io.BytesIO(filled)).pages[0].extract_text()


@pytest.mark.django_db
@pytest.mark.parametrize("incremental", [True, False])
def test_the_setting_chooses_the_writer(
    incremental: bool, organization: Organization, fill: Callable[..., Any]
) -> None:
    template = template_create_from_pdf(
        organization=organization,
        title="w9",
        pdf=(PDFS / "irs-fw9-2018.pdf").read_bytes(),
        publish=True,
    )
    base = version_pdf(working_version(template))
    with override_settings(FILL_INCREMENTAL_UPDATE=incremental):
        response = fill(template, {"data": {"name": "Someone"}})
    assert response.status_code == 200
    assert response.content.startswith(base) == incremental
    assert_sound(response.content, template=base)
