"""core.engine.pdf.edit on its own: what an incremental update keeps, adds and refuses."""

from __future__ import annotations

import io
import re

import pikepdf
import pytest
from reportlab.pdfgen.canvas import Canvas

from core.engine.pdf import IncrementalUpdate, NotIncremental, Rewrite, open_for_edit, open_pdf
from tests.pdfsound import assert_sound


def one_page(*, info: bool = True, object_streams: bool = False) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792), invariant=1)
    canvas.setTitle("Original title")
    canvas.drawString(72, 720, "Original text")
    canvas.showPage()
    canvas.save()
    pdf = pikepdf.open(io.BytesIO(buffer.getvalue()))
    if not info:
        del pdf.trailer["/Info"]
    out = io.BytesIO()
    mode = pikepdf.ObjectStreamMode.generate if object_streams else pikepdf.ObjectStreamMode.disable
    pdf.save(out, object_stream_mode=mode)
    return out.getvalue()


def add_rotation(data: bytes) -> bytes:
    """An update that changes the page only (no new object, the /Info untouched)."""
    edit = open_for_edit(data)
    assert isinstance(edit, IncrementalUpdate)
    page = edit.pdf.pages[0].obj
    edit.changed(page)
    page.Rotate = 90
    return edit.save()


@pytest.mark.parametrize("object_streams", [False, True], ids=["table", "xref-stream"])
def test_an_untouched_information_dictionary_stays_named_in_the_newest_trailer(
    object_streams: bool,
) -> None:
    data = one_page(object_streams=object_streams)
    updated = add_rotation(data)

    assert updated.startswith(data)
    assert_sound(updated, template=data)
    with pikepdf.open(io.BytesIO(updated)) as pdf:
        assert pdf.pages[0].Rotate == 90
        assert str(pdf.docinfo.Title) == "Original title"
    # Only the page and the catalog are written again.
    assert len(re.findall(rb"(?m)^\d+ \d+ obj", updated[len(data) :])) == 2 + object_streams


def test_new_objects_and_streams_are_numbered_from_the_size_and_written() -> None:
    data = one_page(info=False)
    edit = open_for_edit(data)
    assert isinstance(edit, IncrementalUpdate)
    size = int(edit.pdf.trailer.Size)
    page = edit.pdf.pages[0].obj
    drawing = edit.stream(b"q 1 0 0 rg 72 600 200 40 re f Q\n" * 4)  # compressed: long enough
    edit.changed(page)
    page.Contents = pikepdf.Array([page.Contents, drawing])
    info = edit.info()
    info.Title = pikepdf.String("New title")
    updated = edit.save()

    with pikepdf.open(io.BytesIO(updated)) as pdf:
        assert str(pdf.docinfo.Title) == "New title"
        contents = pdf.pages[0].Contents
        assert [part.objgen[0] >= size for part in contents] == [False, True]
        assert contents[1].Filter == pikepdf.Name.FlateDecode
        assert contents[1].read_bytes().startswith(b"q 1 0 0 rg")
    assert_sound(updated, template=data)


def test_an_encrypted_file_is_rewritten() -> None:
    out = io.BytesIO()
    open_pdf(one_page()).save(out, encryption=pikepdf.Encryption(user="", owner="o", R=6))
    assert isinstance(open_for_edit(out.getvalue()), Rewrite)
    with pytest.raises(NotIncremental, match="encrypted"):
        IncrementalUpdate(open_pdf(out.getvalue()), out.getvalue())


def test_a_startxref_pointing_nowhere_is_refused() -> None:
    data = one_page()
    offset = data.rindex(b"startxref")
    wrong = data[:offset] + b"startxref\n9\n%%EOF\n"
    with pytest.raises(NotIncremental):
        IncrementalUpdate(open_pdf(data), wrong)


def test_a_linearized_file_is_rewritten() -> None:
    out = io.BytesIO()
    open_pdf(one_page()).save(out, linearize=True)
    assert isinstance(open_for_edit(out.getvalue()), Rewrite)
    with pytest.raises(NotIncremental, match="linearized"):
        IncrementalUpdate(open_pdf(out.getvalue()), out.getvalue())
