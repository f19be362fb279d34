"""The printed text of a scanned page, read by OCR, as the runs a vector page's text gives.

A scanned page has no text layer, so its fields' labels are read from its picture: RapidOCR's
models (PP-OCRv4 text detection and recognition, ONNX files inside the ``rapidocr_onnxruntime``
wheel) run on onnxruntime. The models are loaded from the installed package's own folder by
absolute path, so nothing is ever downloaded; they are loaded once per worker process, on the
first scanned page, and kept (a detection worker serves many jobs).

Bounded for a worker of the detection pool: one thread (a worker uses one core); the detector
sees the page at about 80 dpi, in strips of a fixed size, because its memory grows with the
pixels it sees (about 300 MB a megapixel); the recogniser reads each line from the page's own
picture (at most OCR_PIXELS), only lines where a found field's label could be when the fields
are given, shortest first, up to a budget of pixels (its time grows with the lines' length).

Each line's box is narrowed to its ink, as pdfium bounds a run's glyphs, and becomes a
``TextRun`` in page space (y: the glyphs' bottom; size: their height / 0.7), so
``field_labels.label_and_type`` reads it as it reads a vector page's text. Pure Python.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image

from core.engine.template_spec import Rect
from templates_app.engine.field_labels import COLUMN_REACH, TextRun
from templates_app.engine.page_raster import INK_LEVEL, PageFrame

# The recogniser reads lines from the page's picture drawn at most this large (pixels).
OCR_PIXELS = 2_500_000
# The detector sees the page at this many pixels per point (about 80 dpi): lines of 6 pt text
# are still found, in a third of the memory and time of the 144 dpi picture.
DETECT_SCALE = 80 / 72
# The detector's strips: this many rows each (a multiple of 32, the model's stride), of which
# MARGIN at the top and at the bottom are shared with the strips next to it, so a line cut by
# one strip's edge is whole in the other (lines up to 2 * MARGIN rows tall).
STRIP_ROWS = 448
MARGIN = 48
# At most this much text is recognised on a page: the total width of its lines once scaled to
# the recogniser's 48 rows (about a second of one core per 25,000).
READ_BUDGET = 24_000
# A line read with less confidence than this is noise (a speck, a fragment of a rule).
MIN_SCORE = 0.5


@functools.cache
def _engine() -> tuple[Any, Any]:
    """RapidOCR's detector and recogniser, made once per process: loading the models takes a
    third of a second and 100 MB, a page's reading takes the same again."""
    # Imported here: only a worker that reads a scan pays for onnxruntime and OpenCV.
    import rapidocr_onnxruntime
    from rapidocr_onnxruntime.ch_ppocr_det import TextDetector
    from rapidocr_onnxruntime.ch_ppocr_rec import TextRecognizer
    from rapidocr_onnxruntime.utils import read_yaml

    config = read_yaml(str(Path(rapidocr_onnxruntime.__file__).parent / "config.yaml"))
    common = {"intra_op_num_threads": 1, "inter_op_num_threads": 1, "use_cuda": False}
    detector = TextDetector(
        {
            **config["Det"],
            **common,
            "model_path": str(model_path("det")),
            # The strips are sized for the model already: no resizing inside.
            "limit_type": "max",
            "limit_side_len": 1 << 16,
        }
    )
    recogniser = TextRecognizer({**config["Rec"], **common, "model_path": str(model_path("rec"))})
    return detector, recogniser


def model_path(part: str) -> Path:
    """The ONNX file of RapidOCR's ``part`` ("det" or "rec"), inside the installed package."""
    import rapidocr_onnxruntime

    names = {"det": "ch_PP-OCRv4_det_infer.onnx", "rec": "ch_PP-OCRv4_rec_infer.onnx"}
    return Path(rapidocr_onnxruntime.__file__).parent / "models" / names[part]


def ocr_runs(
    image: Image.Image, frame: PageFrame, near: Sequence[Rect] | None = None
) -> list[TextRun]:
    """The text of the page whose picture (mode L) ``image`` is, drawn as ``frame`` says, as
    runs in page space. With ``near`` (the page's found fields, in ``frame``'s space), only the
    lines where one of their labels could be are read."""
    import numpy as np

    detector, recogniser = _engine()
    # The picture the recogniser reads from, and the scale from it to ``image``.
    scale = min(1.0, (OCR_PIXELS / (image.width * image.height)) ** 0.5)
    page = image if scale == 1.0 else _resized(image, scale)
    boxes = _detect(detector, page, min(1.0, DETECT_SCALE / (frame.scale * scale)))
    if near is not None:
        wanted = [_pixel_box(frame, rect, scale) for rect in near]
        per_point = frame.scale * scale
        boxes = [box for box in boxes if any(_may_label(box, field, per_point) for field in wanted)]
    grey = np.asarray(page)
    crops = []
    for box in sorted(boxes, key=lambda box: box[2] - box[0]):
        tight = _ink_box(grey, box)
        if tight is None:
            continue
        left, top, right, bottom = box
        crops.append((tight, grey[top:bottom, left:right]))
    runs = []
    spent = 0.0
    chosen = []
    for tight, crop in crops:
        spent += crop.shape[1] * 48 / crop.shape[0]
        if spent > READ_BUDGET:
            break
        chosen.append((tight, crop))
    if not chosen:
        return []
    # The recogniser wants three channels; grey is repeated.
    texts, _elapsed = recogniser([np.repeat(crop[:, :, None], 3, axis=2) for _, crop in chosen])
    for (tight, _crop), (text, score, *_rest) in zip(chosen, texts, strict=True):
        text = text.strip()
        if not text or float(score) < MIN_SCORE:
            continue
        left, top, right, bottom = (value / scale for value in tight)
        x0, y0, x1, y1 = frame.box_to_page(left, top, right, bottom)
        runs.append(TextRun(x=x0, y=y0, size=(y1 - y0) / 0.7, text=text, right=x1))
    runs.sort(key=lambda run: (-run.y, run.x))
    return runs


def _resized(image: Image.Image, scale: float) -> Image.Image:
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.BOX)


def _detect(detector: Any, page: Image.Image, scale: float) -> list[tuple[int, int, int, int]]:
    """The boxes (left, top, right, bottom; pixels of ``page``) of the lines of text the
    detector finds on ``page`` seen at ``scale``, strip by strip (the memory of one strip)."""
    import numpy as np

    small = _resized(page, scale)
    width = -(-small.width // 32) * 32
    core = STRIP_ROWS - 2 * MARGIN
    boxes = []
    for start in range(-MARGIN, max(1, small.height - MARGIN), core):
        # Every strip the same size (white beyond the page), so onnxruntime plans it once.
        strip = Image.new("L", (width, STRIP_ROWS), 255)
        strip.paste(
            small.crop((0, max(0, start), small.width, start + STRIP_ROWS)), (0, max(0, -start))
        )
        found, _elapsed = detector(np.asarray(strip.convert("RGB")))
        for points in [] if found is None else found:
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            middle = (min(ys) + max(ys)) / 2
            if not MARGIN <= middle < MARGIN + core:
                continue  # the neighbouring strip holds this line whole
            box = (min(xs), min(ys) + start, max(xs), max(ys) + start)
            left, top, right, bottom = (value / scale for value in box)
            boxes.append(
                (
                    max(0, int(left)),
                    max(0, int(top)),
                    min(page.width, int(right) + 1),
                    min(page.height, int(bottom) + 1),
                )
            )
    return [box for box in boxes if box[2] - box[0] > 2 and box[3] - box[1] > 2]


def _pixel_box(frame: PageFrame, rect: Rect, scale: float) -> tuple[float, float, float, float]:
    left, top, right, bottom = frame.box_to_pixels(rect.x, rect.y, rect.right, rect.top)
    return left * scale, top * scale, right * scale, bottom * scale


def _may_label(box: tuple[int, int, int, int], field: tuple[float, ...], per_point: float) -> bool:
    """Whether a line at ``box`` stands where ``field_labels`` looks for a label of the field
    at ``field`` (both in pixels, ``per_point`` of them a point): on its row (left, right,
    further along), just under it (a caption), or above it over its width (a label above, a
    column's heading up to COLUMN_REACH points up)."""
    left, top, right, bottom = box
    f_left, f_top, f_right, f_bottom = field
    height = bottom - top
    if top < f_bottom + 3 * height and bottom > f_top - height:
        return True
    reach = COLUMN_REACH * per_point
    return (
        left < f_right and right > f_left - 24 * per_point and f_top - reach <= bottom <= f_bottom
    )


def _ink_box(grey: Any, box: tuple[int, int, int, int]) -> tuple[int, int, int, int] | None:
    """``box`` narrowed to the ink of its text (the detector's boxes are padded), leaving out
    rows and columns inked most of the way across (a rule or a box's side beside the text)."""
    left, top, right, bottom = box
    ink = grey[top:bottom, left:right] < INK_LEVEL
    if not ink.any():
        return None
    rows = ink.sum(axis=1)
    columns = ink.sum(axis=0)
    rows[rows > 0.8 * ink.shape[1]] = 0
    columns[columns > 0.8 * ink.shape[0]] = 0
    inked_rows = rows.nonzero()[0]
    inked_columns = columns.nonzero()[0]
    if not len(inked_rows) or not len(inked_columns):
        return None
    return (
        left + int(inked_columns[0]),
        top + int(inked_rows[0]),
        left + int(inked_columns[-1]) + 1,
        top + int(inked_rows[-1]) + 1,
    )
