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
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from django.test import override_settings
from PIL import ImageChops
from pypdf import PdfReader

from accounts.models import Organization
from core.engine.fonts import FontLibrary
from core.engine.pdf import IncrementalUpdate, Rewrite, open_for_edit
from core.engine.template_spec import TemplateSpec
from fill.engine import FillContext, fill_pdf, parse_fill_request
from templates_app.engine.pdf_import import import_pdf
from templates_app.services import template_create_from_pdf, version_pdf, working_version
from tests.fill.test_base_shapes import SHAPES, make_base, spec_for
from tests.fill.test_fixture_forms import data_for
from tests.fixtures import FILLABLE_PDFS, PDFS
from tests.pdfcheck import render
from tests.pdfsound import assert_sound

OBJECT = re.compile(rb"(?m)^(\d+) (\d+) obj\b")
Imported = dict[str, tuple[bytes, TemplateSpec]]


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> FillContext:
    def no_download(url: str) -> bytes:
        raise OSError("no catalog fonts in these tests")

    fonts = FontLibrary(cache_dir=Path(tmp_path_factory.mktemp("fonts")), download=no_download)
    return FillContext(fonts=fonts, load_image=lambda url: None)


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
