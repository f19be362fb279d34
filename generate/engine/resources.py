"""Every URL WeasyPrint wants (images, stylesheets, fonts, the logo) goes through here.

- ``http``/``https`` go through the shared safe fetcher (`core.engine.fetch`) under the policy
  the service hands over: public addresses only, no redirects, a short deadline, a size cap,
  and only the content types a document may use (images, stylesheets, TrueType fonts).
- ``data:`` URLs are decoded by the same module, with the same type and size rules.
- ``file:`` URLs are read only for files under the allowed roots (the font cache) or named
  exactly (the service's logo); anything else is refused.
- Fonts: the spec accepts only TrueType, served as ``font/ttf`` or ``application/x-font-ttf``.
  Other font types never pass the content-type check; bytes that claim to be TrueType but are
  not (WOFF, OpenType/CFF) are refused too. Bytes of a font never pass as an image.

A refusal raises `ResourceRefused`; WeasyPrint then renders without the resource, which is what
the spec wants for broken images and unsupported fonts. The fetcher is a frozen dataclass so it
can travel to a render worker process.
"""

from __future__ import annotations

import io
import logging
import mimetypes
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from PIL import Image

from core.engine.fetch import FetchError, FetchPolicy, fetch
from core.engine.images import DEFAULT_IMAGE_FORMATS, DEFAULT_MAX_PIXELS, SVG_CONTENT_TYPE

logger = logging.getLogger(__name__)

# What a generated document may load over http(s) or data: URLs.
RESOURCE_CONTENT_TYPES: tuple[str, ...] = (
    "image/",
    "text/css",
    "font/ttf",
    "application/x-font-ttf",
)
TTF_CONTENT_TYPES = frozenset({"font/ttf", "application/x-font-ttf"})
_TRUETYPE_MAGIC = (b"\x00\x01\x00\x00", b"true")
_FONT_MAGIC = (*_TRUETYPE_MAGIC, b"OTTO", b"wOFF", b"wOF2", b"ttcf")
_FILE_TYPES = {".ttf": "font/ttf", ".svg": SVG_CONTENT_TYPE, ".png": "image/png"}


class ResourceRefused(Exception):
    """A resource the document may not use; ``code`` says why (for logs and tests)."""

    def __init__(self, code: str) -> None:
        self.code = code
        super().__init__(code)


@dataclass(frozen=True)
class Resource:
    url: str
    content_type: str
    data: bytes


@dataclass(frozen=True)
class ResourceFetcher:
    """Fetch one URL for a document under the service's rules, or raise ResourceRefused."""

    policy: FetchPolicy
    file_roots: tuple[str, ...] = ()  # directories whose files may be read
    files: tuple[str, ...] = ()  # single files that may be read
    max_pixels: int = DEFAULT_MAX_PIXELS

    def __call__(self, url: str) -> Resource:
        scheme = url[: url.find(":")].lower() if ":" in url else ""
        if scheme == "file":
            return self._file(url)
        if scheme not in ("http", "https", "data"):
            raise ResourceRefused("scheme_not_allowed")
        try:
            fetched = fetch(url, self.policy)
        except FetchError as exc:
            raise ResourceRefused(exc.code) from None
        self._check(fetched.content_type, fetched.data)
        return Resource(url=fetched.url, content_type=fetched.content_type, data=fetched.data)

    def _file(self, url: str) -> Resource:
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise ResourceRefused("file_not_allowed")
        path = Path(unquote(parts.path)).resolve()
        allowed = any(path == Path(name).resolve() for name in self.files) or any(
            path.is_relative_to(Path(root).resolve()) for root in self.file_roots
        )
        if not allowed or not path.is_file():
            raise ResourceRefused("file_not_allowed")
        content_type = _FILE_TYPES.get(path.suffix.lower()) or (
            mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        )
        return Resource(url=url, content_type=content_type, data=path.read_bytes())

    def _check(self, content_type: str, data: bytes) -> None:
        if content_type in TTF_CONTENT_TYPES:
            if not data.startswith(_TRUETYPE_MAGIC):
                raise ResourceRefused("not_truetype")
            return
        if content_type.startswith("image/"):
            if data.startswith(_FONT_MAGIC):
                raise ResourceRefused("font_as_image")
            if content_type != SVG_CONTENT_TYPE:
                self._check_raster(data)

    def _check_raster(self, data: bytes) -> None:
        # Only the header is read here; WeasyPrint decodes the image itself later. This keeps
        # decompression bombs and non-images away from the renderer.
        try:
            with Image.open(io.BytesIO(data), formats=list(DEFAULT_IMAGE_FORMATS)) as image:
                width, height = image.size
        except (OSError, SyntaxError, ValueError, Image.DecompressionBombError):
            raise ResourceRefused("not_an_image") from None
        if width * height > self.max_pixels:
            raise ResourceRefused("too_many_pixels")
