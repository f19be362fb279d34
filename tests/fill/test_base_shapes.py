"""The fill engine on base PDFs of every structural shape real files have, with no database.

Each base is made here (reportlab, then pikepdf or pypdf to give it its shape). Every output
must pass the structural check (tests/pdfsound.py), keep the base's own text, and show the
filled values on the right pages, flat and interactive, once and in a whole-PDF repeat.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import pikepdf
import pytest
from pypdf import PdfReader, PdfWriter
from reportlab.pdfgen.canvas import Canvas

from core.engine.template_spec import TemplateSpec
from fill.engine import FillContext, fill_pdf, parse_fill_request
from templates_app.engine.pdf_import import import_pdf
from tests.pdfcheck import inherit_page_attributes, words
from tests.pdfsound import assert_sound, qpdf_check

WIDTH, HEIGHT = 612, 792


def _reportlab_pages(texts: list[str], *, empty_content: bool = False) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(WIDTH, HEIGHT), invariant=1)
    for text in texts:
        if not empty_content:
            canvas.setFont("Helvetica", 14)
            canvas.drawString(72, 720, text)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _save(pdf: pikepdf.Pdf, **options: object) -> bytes:
    out = io.BytesIO()
    pdf.save(out, **options)
    return out.getvalue()


def source(*, empty: bool = False, form: bool = False) -> bytes:
    """Two pages of text (or of empty content streams), with an AcroForm when ``form``."""
    data = _reportlab_pages(["", ""] if empty else ["Base page one", "Base page two"])
    return with_form(data) if form else data


def with_form(data: bytes) -> bytes:
    """A text field on each page whose widget paints a background and a border (/MK)."""
    pdf = pikepdf.open(io.BytesIO(data))
    fields = []
    for index, page in enumerate(pdf.pages):
        widget = pdf.make_indirect(
            pikepdf.Dictionary(
                Type=pikepdf.Name.Annot,
                Subtype=pikepdf.Name.Widget,
                FT=pikepdf.Name.Tx,
                T=pikepdf.String(f"name{index}"),
                Rect=pikepdf.Array([72, 400, 372, 424]),
                F=4,
                P=page.obj,
                MK=pikepdf.Dictionary(
                    BG=pikepdf.Array([0.9, 0.9, 1]), BC=pikepdf.Array([0, 0, 0.5])
                ),
                DA=pikepdf.String("/Helv 10 Tf 0 g"),
            )
        )
        page.obj.Annots = pikepdf.Array([widget])
        fields.append(widget)
    pdf.Root.AcroForm = pikepdf.Dictionary(Fields=pikepdf.Array(fields))
    return _save(pdf)


def contents_reference(data: bytes) -> bytes:
    return data


def contents_array(data: bytes) -> bytes:
    pdf = pikepdf.open(io.BytesIO(data))
    for page in pdf.pages:
        stream = page.Contents.read_bytes()
        half = stream.index(b"BT")
        page.Contents = pikepdf.Array(
            [pdf.make_stream(stream[:half]), pdf.make_stream(stream[half:])]
        )
    return _save(pdf)


def contents_shared_between_pages(data: bytes) -> bytes:
    """/Contents arrays that hold a reference to one stream used by both pages."""
    pdf = pikepdf.open(io.BytesIO(data))
    shared = pdf.make_stream(b"0 0 1 rg 72 60 200 10 re f")
    for page in pdf.pages:
        page.Contents = pikepdf.Array([shared, page.Contents])
    return _save(pdf)


def inherited_attributes(data: bytes) -> bytes:
    """/Resources and /MediaBox given once, on an intermediate node of the page tree."""
    pdf = pikepdf.open(io.BytesIO(data))
    inherit_page_attributes(pdf, pdf.pages[0].Resources, [0, 0, WIDTH, HEIGHT])
    return _save(pdf)


def object_streams(data: bytes) -> bytes:
    pdf = pikepdf.open(io.BytesIO(data))
    return _save(pdf, object_stream_mode=pikepdf.ObjectStreamMode.generate)


def incremental_update(data: bytes) -> bytes:
    """A base that is already an incremental update: page two gains text in an appended section."""
    writer = PdfWriter(io.BytesIO(data), incremental=True)
    writer.add_metadata({"/Title": "Updated once"})
    added = PdfReader(io.BytesIO(_reportlab_pages(["Added by the update"])))
    writer.pages[1].merge_transformed_page(added.pages[0], (1, 0, 0, 1, 0, -40))
    out = io.BytesIO()
    writer.write(out)
    updated = out.getvalue()
    assert updated.startswith(data)  # the original file, then an appended update
    assert updated.count(b"startxref") == data.count(b"startxref") + 1
    return updated


def broken_xref(data: bytes) -> bytes:
    """Every offset of the xref table wrong by 7 bytes: readers must rebuild it."""
    data = _save(pikepdf.open(io.BytesIO(data)))  # one classic xref table to damage
    start = data.rindex(b"\nxref\n") + 6
    end = data.index(b"trailer", start)
    lines = data[start:end].decode().splitlines()
    fixed = [lines[0]] + [
        f"{int(line[:10]) + 7:010d}{line[10:]}" if line.rstrip().endswith("n") else line
        for line in lines[1:]
    ]
    return data[:start] + ("\n".join(fixed) + "\n").encode() + data[end:]


def rotated_offset_boxes(data: bytes) -> bytes:
    pdf = pikepdf.open(io.BytesIO(data))
    for page, rotate in zip(pdf.pages, (90, 270), strict=True):
        page.MediaBox = pikepdf.Array([-100, 50, WIDTH - 100, HEIGHT + 50])
        page.CropBox = pikepdf.Array([-90, 60, WIDTH - 110, HEIGHT + 40])
        page.Rotate = rotate
    return _save(pdf)


def encrypted_empty_password(data: bytes) -> bytes:
    pdf = pikepdf.open(io.BytesIO(data))
    return _save(
        pdf,
        encryption=pikepdf.Encryption(
            user="", owner="owner", R=6, allow=pikepdf.Permissions(modify_form=False)
        ),
    )


SHAPES: dict[str, Callable[[bytes], bytes]] = {
    "contents-reference": contents_reference,
    "contents-empty-stream": contents_reference,  # made from empty pages, see make_base
    "contents-array": contents_array,
    "contents-shared-between-pages": contents_shared_between_pages,
    "inherited-resources-and-mediabox": inherited_attributes,
    "object-and-xref-streams": object_streams,
    "incremental-update": incremental_update,
    "broken-xref-table": broken_xref,
    "rotate-and-offset-boxes": rotated_offset_boxes,
    "encrypted-empty-user-password": encrypted_empty_password,
}


def make_base(shape: str, *, form: bool = False) -> bytes:
    return SHAPES[shape](source(empty=shape == "contents-empty-stream", form=form))


def spec_for(base: bytes) -> TemplateSpec:
    """A text field and a checkbox on each page, placed inside that page's MediaBox."""
    pdf = pikepdf.open(io.BytesIO(base))
    pages, fields = [], []
    for index, page in enumerate(pdf.pages):
        x0, y0, x1, y1 = (float(v) for v in page.mediabox)
        pages.append(
            {
                "width": x1 - x0,
                "height": y1 - y0,
                "rotate": int(page.obj.get("/Rotate", 0)),
                "mediaBox": [x0, y0, x1, y1],
            }
        )
        fields.append(
            {
                "id": f"name{index}",
                "alias": f"name{index}",
                "type": "shortText",
                "page": index,
                "rect": {"x": x0 + 72, "y": y0 + 400, "width": 300, "height": 24},
            }
        )
        fields.append(
            {
                "id": f"agree{index}",
                "alias": f"agree{index}",
                "type": "checkbox",
                "page": index,
                "rect": {"x": x0 + 72, "y": y0 + 300, "width": 20, "height": 20},
            }
        )
    return TemplateSpec.from_json({"pages": pages, "fields": fields})


def page_words(pdf: bytes) -> list[str]:
    return [" ".join(w.text for w in page) for page in words(pdf)]


@pytest.mark.parametrize("interactive", [False, True], ids=["flat", "interactive"])
@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_fills_into_a_sound_pdf(
    shape: str, interactive: bool, context: FillContext
) -> None:
    base = make_base(shape)
    spec = spec_for(base)
    body = {
        "useInteractiveFields": interactive,
        "data": {"name0": "Filled Alpha", "name1": "Filled Beta", "agree1": True},
    }
    request = parse_fill_request(body, max_documents=10)
    pdf = fill_pdf(template_pdf=base, spec=spec, request=request, context=context)

    assert_sound(pdf, template=base)
    texts = page_words(pdf)
    assert len(texts) == 2
    assert "Filled Alpha" in texts[0]
    assert "Filled Beta" in texts[1]
    if shape != "contents-empty-stream":
        assert "Base page one" in texts[0]
        assert "Base page two" in texts[1]
    if shape == "incremental-update":
        assert "Added by the update" in texts[1]
    assert pikepdf.open(io.BytesIO(pdf)).is_encrypted is False


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_repeats_into_a_sound_pdf(shape: str, context: FillContext) -> None:
    base = make_base(shape)
    body = {"data": [{"name0": f"Copy {n}", "name1": f"Second {n}"} for n in range(1, 4)]}
    request = parse_fill_request(body, max_documents=10)
    pdf = fill_pdf(template_pdf=base, spec=spec_for(base), request=request, context=context)

    assert_sound(pdf, template=base)
    texts = page_words(pdf)
    assert len(texts) == 6
    for n in range(1, 4):
        assert f"Copy {n}" in texts[2 * n - 2]
        assert f"Second {n}" in texts[2 * n - 1]
    # Each copy draws its own overlay once: no copy inherits the first copy's drawing.
    extracted = [page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages]
    for n in range(1, 4):
        assert extracted[2 * n - 2].count(f"Copy {n}") == 1, extracted[2 * n - 2]
        assert "Copy" not in extracted[2 * n - 2].replace(f"Copy {n}", "")


def test_the_broken_base_is_really_broken_and_the_output_is_not(context: FillContext) -> None:
    base = make_base("broken-xref-table")
    assert qpdf_check(base).warnings  # the shape under test is what it claims
    request = parse_fill_request({"data": {"name0": "Repaired"}}, max_documents=1)
    pdf = fill_pdf(template_pdf=base, spec=spec_for(base), request=request, context=context)
    assert qpdf_check(pdf).warnings == ()


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_imports_and_fills_into_sound_pdfs(shape: str, context: FillContext) -> None:
    """A real form's path: import (widgets removed, their paint kept), then fill."""
    original = make_base(shape, form=True)
    imported = import_pdf(original)
    assert {f.alias for f in imported.spec.fields} == {"name0", "name1"}
    assert_sound(imported.pdf, template=original)
    stored = pikepdf.open(io.BytesIO(imported.pdf))
    assert "/AcroForm" not in stored.Root
    assert all("/Annots" not in page.obj for page in stored.pages)

    for interactive in (False, True):
        body = {
            "useInteractiveFields": interactive,
            "data": {"name0": "Imported Alpha", "name1": "Imported Beta"},
        }
        request = parse_fill_request(body, max_documents=1)
        pdf = fill_pdf(
            template_pdf=imported.pdf, spec=imported.spec, request=request, context=context
        )
        assert_sound(pdf, template=original)
        texts = page_words(pdf)
        assert "Imported Alpha" in texts[0]
        assert "Imported Beta" in texts[1]
