"""Pages: attributes inherited through the page tree, and drawing over a page's own content."""

from __future__ import annotations

from collections.abc import Callable

import pikepdf
from pikepdf import Array, Dictionary

# Page attributes a page may inherit from its ancestors in the page tree (ISO 32000-1, 7.7.3.4).
INHERITABLE_PAGE_KEYS = ("/Resources", "/MediaBox", "/CropBox", "/Rotate")


def inherited(page: pikepdf.Object, key: str) -> pikepdf.Object | None:
    """The page's own ``key``, or the nearest ancestor's; None when none has it.

    Bounded, because a malformed tree may loop through /Parent.
    """
    node: pikepdf.Object | None = page
    for _ in range(64):
        if not isinstance(node, Dictionary):
            return None
        if key in node:
            return node[key]
        node = node.get("/Parent")
    return None


def content_streams(page: pikepdf.Object) -> list[pikepdf.Object]:
    """The page's content streams in order (one, an array, or none).

    Only streams belong in /Contents; anything else a damaged file holds there is left out.
    """
    contents = page.get("/Contents")
    if contents is None:
        return []
    parts = list(contents) if isinstance(contents, Array) else [contents]
    return [part for part in parts if isinstance(part, pikepdf.Stream)]


class PageDrawing:
    """Appends drawings after pages' own content, which is wrapped in q/Q so that a graphics
    state it leaves behind (a transformation, a colour) cannot leak into what is drawn after.

    The page's streams stay shared references (pages that share a stream keep sharing it);
    the q and Q streams are made once per file and shared by every page.
    """

    def __init__(
        self, pdf: pikepdf.Pdf, *, new_stream: Callable[[bytes], pikepdf.Object] | None = None
    ) -> None:
        """``new_stream``: how a new stream is made (an editor's, core.engine.pdf.edit); by
        default an indirect stream of ``pdf``."""
        self.pdf = pdf
        self._new_stream = new_stream
        self._wrap: tuple[pikepdf.Object, pikepdf.Object] | None = None

    def stream(self, data: bytes) -> pikepdf.Object:
        if self._new_stream is not None:
            return self._new_stream(data)
        return self.pdf.make_indirect(pikepdf.Stream(self.pdf, data))

    def append(self, page: pikepdf.Object, drawing: pikepdf.Object) -> None:
        if self._wrap is None:
            self._wrap = (self.stream(b"q\n"), self.stream(b"\nQ\n"))
        save, restore = self._wrap
        page.Contents = Array([save, *content_streams(page), restore, drawing])
