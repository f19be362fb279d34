"""Labels on scanned pages (templates_app.engine.page_ocr): a page that is only a picture has
its labels read by OCR, with models from the installed package and nothing downloaded, once per
process; in a detection worker within its memory limit."""

from __future__ import annotations

import io
import socket
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
import rapidocr_onnxruntime
from reportlab.pdfgen.canvas import Canvas

from bench.detect_scoring import scanned_copy
from core.engine.process_pool import PoolSettings
from templates_app.engine import page_ocr
from templates_app.engine.detect_fields import DetectLimits, detect_fields
from templates_app.engine.detect_pool import DetectJob, DetectPool
from templates_app.engine.page_raster import PageFrame, deskew


def labelled_scan() -> bytes:
    """'Email address' above a box and 'Date of birth' left of a line, as a 150 dpi grey
    picture of the page (no text layer)."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    canvas.setFont("Helvetica", 10)
    canvas.drawString(72, 700, "Email address")
    canvas.rect(72, 670, 250, 22)
    canvas.drawString(72, 600, "Date of birth")
    canvas.line(140, 600, 320, 600)
    canvas.save()
    return scanned_copy(buffer.getvalue(), 150, 0.0)


def named(fields: Any) -> list[tuple[str, str, str]]:
    return [(field.alias, field.type, field.label) for field in fields]


def test_a_scanned_pages_fields_are_named_and_typed_from_their_printed_labels() -> None:
    spec = detect_fields(labelled_scan())

    assert named(spec.fields) == [
        ("emailAddress", "email", "Email address"),
        ("dateOfBirth", "date", "Date of birth"),
    ]


def test_the_read_text_lies_where_it_is_printed() -> None:
    """Each run is the ink of its line in page points, as pdfium bounds a vector page's
    text: 'Email address' drawn at (72, 700) in 10 pt Helvetica."""
    document = pdfium.PdfDocument(labelled_scan())
    image = document[0].render(scale=2, grayscale=True).to_pil().convert("L")
    frame = PageFrame(crop=(0.0, 0.0, 612.0, 792.0), rotation=0, scale=2)

    runs = page_ocr.ocr_page(image, frame).runs

    email = next(run for run in runs if run.text == "Email address")
    assert abs(email.x - 72) <= 2
    assert abs(email.y - 700) <= 1.5
    # Capitals 7.2 pt tall: a size of about 10 (height / 0.7), ending where the words end.
    assert 9 <= email.size <= 12
    assert 130 <= email.right <= 140


def test_the_models_are_the_packages_own_and_nothing_is_downloaded(monkeypatch: Any) -> None:
    """The ONNX files are inside the installed wheel, the sessions are made from them by path,
    and making the engine and reading a page opens no network connection."""
    package = Path(rapidocr_onnxruntime.__file__).parent
    for part in ("det", "rec"):
        path = page_ocr.model_path(part)
        assert path.stat().st_size > 1_000_000
        assert path.parent == package / "models"

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("OCR tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    page_ocr._engine.cache_clear()
    try:
        detector, recogniser = page_ocr._engine()
        spec = detect_fields(labelled_scan())
    finally:
        page_ocr._engine.cache_clear()

    assert [field.alias for field in spec.fields] == ["emailAddress", "dateOfBirth"]
    for session in (detector.infer.session, recogniser.session.session):
        assert Path(session._model_path).parent == package / "models"
        # One core per worker.
        options = session.get_session_options()
        assert (options.intra_op_num_threads, options.inter_op_num_threads) == (1, 1)


def test_the_engine_is_made_once_per_process() -> None:
    page_ocr._engine.cache_clear()
    detect_fields(labelled_scan())
    detect_fields(labelled_scan())

    info = page_ocr._engine.cache_info()
    assert (info.misses, info.hits) == (1, 1)


@pytest.mark.parametrize("memory_mb", [1024])  # settings.DETECT_WORKER_MEMORY_MB's default
def test_a_detection_worker_reads_a_scan_within_its_memory_limit(memory_mb: int) -> None:
    pool = DetectPool(
        PoolSettings(workers=1, max_jobs=10, memory_limit_bytes=memory_mb * 2**20, nice=0)
    )
    try:
        job = DetectJob(pdf=labelled_scan(), pages=None, limits=DetectLimits())
        spec = pool.run(job, timeout=60, queue_timeout=60)
        again = pool.run(job, timeout=60, queue_timeout=60)
        resident = pool.stats().resident_bytes
    finally:
        pool.close()

    assert [field.alias for field in spec.fields] == ["emailAddress", "dateOfBirth"]
    assert again == spec
    assert resident < 400 * 2**20


def test_a_headings_run_is_its_text_not_the_rule_and_wall_under_it() -> None:
    """Form 8839's "Child 1" heading over a table, scanned half a degree off and turned back:
    OCR's box takes in the rule under it and a stub of the wall below the rule. The run was
    half again the text's height and sat on the rule (size 14 for 8 pt text), and every
    label's reach grew with it."""
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    canvas.setFont("Helvetica-Bold", 8)
    canvas.setLineWidth(0.5)
    for x, heading in ((244, "Child 1"), (324, "Child 2"), (404, "Child 3")):
        canvas.drawString(x, 721, heading)
    canvas.line(200, 717, 460, 717)
    for x in (220, 278, 300, 358, 380, 438, 460):
        canvas.line(x, 600, x, 717)
    canvas.save()
    document = pdfium.PdfDocument(scanned_copy(buffer.getvalue(), 150, 0.5))
    image = document[0].render(scale=2, grayscale=True).to_pil().convert("L")
    image, _angle = deskew(image)
    frame = PageFrame(crop=(0.0, 0.0, 612.0, 792.0), rotation=0, scale=2)

    runs = [run for run in page_ocr.ocr_page(image, frame).runs if run.text.startswith("Child")]

    assert len(runs) == 3, runs
    assert all(abs(run.y - 721) <= 1.5 and 7 <= run.size <= 11 for run in runs), [
        (run.text, run.y, run.size) for run in runs
    ]
