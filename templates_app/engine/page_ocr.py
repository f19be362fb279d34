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

import ctypes
import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
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
# ...and at most this many columns: a wide page is seen smaller.
DETECT_WIDTH = 1280
MARGIN = 48
# At most this much text is recognised on a page: the total width of its lines once scaled to
# the recogniser's 48 rows, with their margins (about 0.7 s of one core).
READ_BUDGET = 9_000
# A line read with less confidence than this is noise (a speck, a fragment of a rule).
MIN_SCORE = 0.5
# glibc's mallopt parameter, and the size from which a block is mapped on its own.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 4 << 20


@functools.cache
def _engine() -> tuple[Any, Any]:
    """RapidOCR's detector and recogniser, made once per process: loading the models takes a
    third of a second and 100 MB, a page's reading takes the same again."""
    # numpy's OpenBLAS would start a thread per core at import (and reserve 128 MB of address
    # space for them); RapidOCR does no linear algebra that needs them.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    _tensors_unmapped_when_freed()
    # Imported here: only a worker that reads a scan pays for onnxruntime and OpenCV.
    import cv2
    import rapidocr_onnxruntime
    from rapidocr_onnxruntime.ch_ppocr_det import TextDetector
    from rapidocr_onnxruntime.ch_ppocr_rec import TextRecognizer
    from rapidocr_onnxruntime.utils import read_yaml

    # OpenCV (RapidOCR resizes and finds the boxes' outlines with it) on this thread alone: its
    # own pool would start a thread per core, each with its stack and malloc arena, address
    # space the worker's limit counts.
    cv2.setNumThreads(1)
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
    recogniser = TextRecognizer(
        {
            **config["Rec"],
            **common,
            "model_path": str(model_path("rec")),
            # One line at a time, as wide as it is: a batch is padded to its widest line and
            # every line to 320 pixels, a third more work for the same text on one thread.
            "rec_batch_num": 1,
            "rec_img_shape": [3, 48, 48],
        }
    )
    return detector, recogniser


def _tensors_unmapped_when_freed() -> None:
    """Blocks of MMAP_THRESHOLD bytes and more (the detector's tensors of a strip) are mapped
    on their own and given back to the system when freed. glibc's threshold otherwise rises to
    the largest block freed so far, after which such tensors come from the heap, whose freed
    holes a strip's differently sized tensors do not fit: one landscape page peaked at 340-425
    MB from run to run, and 280-290 MB with the threshold fixed (a smaller one costs more in
    page faults than it saves). Nothing to do where the C library is not glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    except (OSError, AttributeError):
        pass


def model_path(part: str) -> Path:
    """The ONNX file of RapidOCR's ``part`` ("det" or "rec"), inside the installed package."""
    import rapidocr_onnxruntime

    names = {"det": "ch_PP-OCRv4_det_infer.onnx", "rec": "ch_PP-OCRv4_rec_infer.onnx"}
    return Path(rapidocr_onnxruntime.__file__).parent / "models" / names[part]


@dataclass(frozen=True)
class ScannedText:
    """What OCR saw of a scanned page: ``runs``, the lines it read (with their text), and
    ``inked``, the ink of every line its detector found, read or not (page space)."""

    runs: list[TextRun]
    inked: list[Rect]


def ocr_page(
    image: Image.Image, frame: PageFrame, near: Sequence[Rect] | None = None
) -> ScannedText:
    """The text of the page whose picture (mode L) ``image`` is, drawn as ``frame`` says, as
    runs in page space, with the ink of every line found. With ``near`` (the page's found
    fields, in ``frame``'s space), only the lines where one of their labels could be are read."""
    import numpy as np

    detector, recogniser = _engine()
    # The picture the recogniser reads from, and the scale from it to ``image``.
    scale = min(1.0, (OCR_PIXELS / (image.width * image.height)) ** 0.5)
    page = image if scale == 1.0 else _resized(image, scale)
    grey = np.asarray(page)
    lines = []  # (the line's ink as a run with no text yet, the pixels the recogniser reads)
    # The detector's scale: about 80 dpi, a strip no wider than DETECT_WIDTH.
    detect_scale = min(1.0, DETECT_SCALE / (frame.scale * scale), DETECT_WIDTH / page.width)
    for box in _detect(detector, page, detect_scale):
        tight = _ink_box(grey, box)
        if tight is None:
            continue
        x0, y0, x1, y1 = frame.box_to_page(*(value / scale for value in tight))
        run = TextRun(x=x0, y=y0, size=(y1 - y0) / 0.7, text="", right=x1)
        left, top, right, bottom = box
        lines.append((run, grey[top:bottom, left:right]))
    inked = [Rect(run.x, run.y, run.right - run.x, 0.7 * run.size) for run, _ in lines]
    ranks = _ranks([run for run, _ in lines], near) if near is not None else [0] * len(lines)
    # Most likely labels first, the shortest first among them, as long as the budget lasts.
    order = sorted(
        (index for index, rank in enumerate(ranks) if rank is not None),
        key=lambda index: (ranks[index], lines[index][1].shape[1] / lines[index][1].shape[0]),
    )
    chosen = []
    spent = 0.0
    for index in order:
        crop = lines[index][1]
        spent += crop.shape[1] * 48 / crop.shape[0] + 48
        if spent > READ_BUDGET:
            break
        chosen.append(index)
    if not chosen:
        return ScannedText([], inked)
    # Paper (white) half a line high each side, or the last letters are often lost; the
    # recogniser wants three channels, grey is repeated.
    crops = []
    for index in chosen:
        crop = lines[index][1]
        margin = crop.shape[0] // 2
        crop = np.pad(crop, ((0, 0), (margin, margin)), constant_values=255)
        crops.append(np.repeat(crop[:, :, None], 3, axis=2))
    texts, _elapsed = recogniser(crops)
    runs = []
    for index, (text, score, *_rest) in zip(chosen, texts, strict=True):
        text = text.strip()
        if text and float(score) >= MIN_SCORE:
            run = lines[index][0]
            runs.append(TextRun(x=run.x, y=run.y, size=run.size, text=text, right=run.right))
    runs.sort(key=lambda run: (-run.y, run.x))
    return ScannedText(runs, inked)


def _ranks(runs: Sequence[TextRun], fields: Sequence[Rect]) -> list[int | None]:
    """How likely each line is to be read as a found field's label by ``field_labels``, 0
    first, None for never: a line in a field's label place (``page_text.labels_near``: just
    left, right or above; inside its cell) is 0, its column heading or the caption under it
    1, the texts further along its row 2. The places are those of ``field_labels`` with a
    couple of points to spare (the ink of a scan is not a font's box)."""
    ranks: list[int | None] = [None] * len(runs)

    def mark(indices: Sequence[int], rank: int) -> None:
        for index in indices:
            current = ranks[index]
            ranks[index] = rank if current is None else min(current, rank)

    for rect in fields:
        row = [
            i
            for i, run in enumerate(runs)
            if run.x < rect.x and rect.y - 4 <= run.y <= rect.top + 3
        ]
        row.sort(key=lambda i: -runs[i].end)
        mark(row[:1], 0)
        mark(row[1:4], 2)
        right = [
            i
            for i, run in enumerate(runs)
            if rect.right - 3 <= run.x <= rect.right + 3 * run.size + 8
            and rect.y - run.size - 2 <= run.y <= rect.top + 2
        ]
        mark(sorted(right, key=lambda i: runs[i].x)[:1], 0)
        above = [
            i
            for i, run in enumerate(runs)
            if rect.top - 3 < run.y <= rect.top + max(14.0, 2.2 * run.size + 2)
            and rect.x - 26 <= run.x < rect.right
        ]
        mark(above, 0)
        heading = [
            i
            for i, run in enumerate(runs)
            if rect.x - 2 <= (run.x + run.end) / 2 <= rect.right + 2
            and rect.top - 3 < run.y <= rect.top + COLUMN_REACH
        ]
        mark(sorted(heading, key=lambda i: runs[i].y)[:2], 1)
        below = [
            i
            for i, run in enumerate(runs)
            if rect.y - 3 * run.size - 4 <= run.y + run.size <= rect.y + 3
            and run.x < rect.right
            and run.end > rect.x
        ]
        mark(sorted(below, key=lambda i: -runs[i].y)[:1], 1)
    return ranks


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


def _ink_box(grey: Any, box: tuple[int, int, int, int]) -> tuple[int, int, int, int] | None:
    """``box`` narrowed to the ink of its text (the detector's boxes are padded), leaving out
    rows and columns inked most of the way across (a rule or a box's side beside the text)."""
    left, top, right, bottom = box
    ink = grey[top:bottom, left:right] < INK_LEVEL
    if not ink.any():
        return None
    rows = ink.sum(axis=1)
    rows[rows > 0.8 * ink.shape[1]] = 0
    band = _text_band(rows)
    if band is None:
        return None
    # The columns of the text's rows only: a wall's stub under a rule is not the text's.
    columns = ink[band[0] : band[1]].sum(axis=0)
    columns[columns > 0.8 * (band[1] - band[0])] = 0
    inked_rows = rows[band[0] : band[1]].nonzero()[0] + band[0]
    inked_columns = columns.nonzero()[0]
    if not len(inked_rows) or not len(inked_columns):
        return None
    return (
        left + int(inked_columns[0]),
        top + int(inked_rows[0]),
        left + int(inked_columns[-1]) + 1,
        top + int(inked_rows[-1]) + 1,
    )


def _text_band(rows: Any) -> tuple[int, int] | None:
    """The rows (start, end) of the line's text in a detector's box, from each row's ink
    (``rows``, a rule's rows already zero): the block of inked rows with the most ink, a blank
    row inside it allowed (the dot of an i). The detector's box often takes in the rule under
    the text and a stub of a wall below that rule, apart from the text: counted in, they made
    the run twice as tall, and every label's reach with it."""
    blocks: list[tuple[int, int, int]] = []  # (ink, start, end)
    start = None
    gap = 0
    for index, count in enumerate(rows):
        if count:
            if start is None:
                start = index
            gap = 0
            end = index + 1
        elif start is not None:
            gap += 1
            if gap > 1:
                blocks.append((int(rows[start:end].sum()), start, end))
                start = None
    if start is not None:
        blocks.append((int(rows[start:end].sum()), start, end))
    if not blocks:
        return None
    _ink, first, last = max(blocks)
    return first, last
