"""The pictures of a document's pages that the signing page shows, kept once drawn.

On a phone the first page shows only once its picture has come back, and drawing it (pdfium,
then the palette and WebP encoding of `esign.engine.pages`) takes 0.1 s of CPU on an idle core
and several times that on a busy machine: the picture's answer, not the link, was what kept the
first page of a long packet from showing within 2 s (bench/signing_page.py). So the signing
page starts drawing its first page's picture while the browser is still reading the HTML, and
the picture's request takes it drawn.

Pictures are kept in files under ``DATA_DIR/page-pictures`` (Django's file cache: every web
process of the machine sees them, each file written whole, the oldest dropped past
``MAX_ENTRIES``), named by the document's content hash, the page and the width: a document
signed since has another hash, and two packets of one file share its pictures, which show
nothing the file does not.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.core.cache.backends.filebased import FileBasedCache

from core.blobs import blob_read
from esign.engine.pages import render_page

logger = logging.getLogger(__name__)

# A day: a signer comes back to a packet within days; the file cache drops the rest on its own.
KEEP_SECONDS = 24 * 3600
MAX_ENTRIES = 2000

_cache: FileBasedCache | None = None
_cache_dir: str | None = None
# The pictures this process is drawing now: a request for one waits for it rather than drawing
# it a second time.
_drawing: dict[str, threading.Event] = {}
_drawing_lock = threading.Lock()


def _pictures() -> FileBasedCache:
    """The file cache, in the DATA_DIR in force (tests give each run its own)."""
    global _cache, _cache_dir
    location = str(settings.DATA_DIR / "page-pictures")
    if _cache is None or _cache_dir != location:
        _cache = FileBasedCache(
            location, {"TIMEOUT": KEEP_SECONDS, "OPTIONS": {"MAX_ENTRIES": MAX_ENTRIES}}
        )
        _cache_dir = location
    return _cache


def _key(sha256: str, page: int, width: int) -> str:
    return f"{sha256}:{page}:{width}"


def page_picture(*, path: str, sha256: str, page: int, width: int) -> bytes:
    """Page ``page`` (from 0) of the stored PDF at ``path`` (content hash ``sha256``), drawn
    ``width`` pixels wide, as WebP: kept, or drawn now (`esign.engine.pages.render_page`, whose
    PageUnavailable it raises)."""
    key = _key(sha256, page, width)
    picture = _pictures().get(key)
    if picture is not None:
        return picture
    with _drawing_lock:
        drawing = _drawing.get(key)
        if drawing is None:
            drawing = _drawing[key] = threading.Event()
            mine = True
        else:
            mine = False
    if not mine:
        drawing.wait(timeout=30)
        picture = _pictures().get(key)
        if picture is not None:
            return picture
        # The other drawing failed (the page is missing): draw it to raise the same error.
        return render_page(blob_read(path, sha256), index=page, width=width)
    try:
        picture = render_page(blob_read(path, sha256), index=page, width=width)
        _pictures().set(key, picture)
        return picture
    finally:
        with _drawing_lock:
            _drawing.pop(key, None)
        drawing.set()


def draw_ahead(*, path: str, sha256: str, page: int, width: int) -> None:
    """Start drawing a picture in the background unless it is kept: the signing page asks for
    its first page's picture as soon as the browser reads the HTML."""
    key = _key(sha256, page, width)
    if _pictures().has_key(key) or key in _drawing:
        return

    def draw() -> None:
        try:
            page_picture(path=path, sha256=sha256, page=page, width=width)
        except Exception:  # the picture's own request reports it, to the signer
            logger.info("a page picture drawn ahead failed", exc_info=True)

    threading.Thread(target=draw, name="page-picture", daemon=True).start()
