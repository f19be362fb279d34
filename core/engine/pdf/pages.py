"""Pages: attributes inherited through the page tree, and drawing over a page's own content:
streams appended after it (PageDrawing), and the pages of one PDF (an overlay, usually made with
reportlab) drawn over another's pages (``add_overlays``, ``overlay_pages``).

Each overlay page becomes a form XObject whose BBox is the base page's MediaBox, so it is drawn
in the base page's own user space: what the overlay drew at (x, y) lands at (x, y) of the base
page, whatever its /Rotate and wherever its MediaBox starts. The base page's content is wrapped
in q/Q first (PageDrawing), so a graphics state it leaves behind cannot move the overlay, and
everything else on the page (annotations, links, structure) is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pikepdf
from pikepdf import Array, Dictionary

from core.engine.pdf.document import open_pdf, save_pdf
from core.engine.pdf.objects import form_xobject

# Page attributes a page may inherit from its ancestors in the page tree (ISO 32000-1, 7.7.3.4).
INHERITABLE_PAGE_KEYS = ("/Resources", "/MediaBox", "/CropBox", "/Rotate")
DEFAULT_PREFIX = "/DocAutomationOverlay"
LETTER = (0.0, 0.0, 612.0, 792.0)  # what viewers assume for a page without any /MediaBox


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


def media_box(page: pikepdf.Object) -> tuple[float, float, float, float]:
    """The page's MediaBox (inherited or its own) as (x0, y0, x1, y1); Letter when absent."""
    box = inherited(page, "/MediaBox")
    if not isinstance(box, Array) or len(box) != 4:
        return LETTER
    x0, y0, x1, y1 = (float(v) for v in box)
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


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
    the q and Q streams are made once per file and shared by every page, as is each drawing
    given to ``append_shared``.
    """

    def __init__(
        self, pdf: pikepdf.Pdf, *, new_stream: Callable[[bytes], pikepdf.Object] | None = None
    ) -> None:
        """``new_stream``: how a new stream is made (an editor's, core.engine.pdf.edit); by
        default an indirect stream of ``pdf``."""
        self.pdf = pdf
        self._new_stream = new_stream
        self._wrap: tuple[pikepdf.Object, pikepdf.Object] | None = None
        self._shared: dict[bytes, pikepdf.Object] = {}  # append_shared's streams, by content

    def stream(self, data: bytes) -> pikepdf.Object:
        if self._new_stream is not None:
            return self._new_stream(data)
        return self.pdf.make_indirect(pikepdf.Stream(self.pdf, data))

    def append(self, page: pikepdf.Object, drawing: pikepdf.Object) -> None:
        if self._wrap is None:
            self._wrap = (self.stream(b"q\n"), self.stream(b"\nQ\n"))
        save, restore = self._wrap
        page.Contents = Array([save, *content_streams(page), restore, drawing])

    def append_shared(self, page: pikepdf.Object, data: bytes) -> None:
        """Append the drawing ``data`` (a "Do" of a form the page names, say): its stream is
        made on its first page and shared by every page it is drawn on after."""
        drawing = self._shared.get(data)
        if drawing is None:
            drawing = self._shared[data] = self.stream(data)
        self.append(page, drawing)


class PageOverlays:
    """Draws form XObjects over pages of ``pdf``, each after everything the page had.

    Each form gets a name of its own in the page's /XObject resources: ``prefix``, or
    ``prefix`` with a number when the page already uses that name (a page stamped before, or a
    filled output used again as a template), so earlier drawings are never replaced.
    """

    def __init__(
        self, pdf: pikepdf.Pdf, *, prefix: str = DEFAULT_PREFIX, drawing: PageDrawing | None = None
    ) -> None:
        self.pdf = pdf
        self.prefix = prefix
        # A caller that draws more on the same pages (the fill) passes its own, so the saved
        # graphics state and the shared drawings are made once.
        self.drawing = drawing or PageDrawing(pdf)

    def add(self, page: pikepdf.Object, form: pikepdf.Object) -> str:
        """Draw ``form`` over ``page``; returns the resource name it was given."""
        # The page's resources are copied onto the page itself: an inherited or shared
        # /Resources dictionary belongs to other pages too and must not gain our form.
        resources = inherited(page, "/Resources")
        resources = (
            Dictionary(dict(resources.items()))
            if isinstance(resources, Dictionary)
            else Dictionary()
        )
        xobjects = resources.get("/XObject")
        xobjects = (
            Dictionary(dict(xobjects.items())) if isinstance(xobjects, Dictionary) else Dictionary()
        )
        name = self._free_name(xobjects)
        xobjects[name] = form
        resources.XObject = xobjects
        page.Resources = resources
        self.drawing.append_shared(page, f"q {name} Do Q\n".encode())
        return name

    def _free_name(self, xobjects: Dictionary) -> str:
        name, counter = self.prefix, 0
        while name in xobjects:
            counter += 1
            name = f"{self.prefix}{counter}"
        return name


def add_overlays(
    pdf: pikepdf.Pdf,
    overlay: pikepdf.Pdf,
    placements: Mapping[int, int],
    *,
    prefix: str = DEFAULT_PREFIX,
) -> None:
    """Draw page ``placements[i]`` of ``overlay`` over page ``i`` of ``pdf``, in place.

    The overlay's pages are read, and their /Resources made indirect objects of ``overlay``.

    Raises IndexError for a page number either file does not have.
    """
    pages = pdf.pages
    sources = overlay.pages
    for index, source_index in placements.items():
        if not 0 <= index < len(pages):
            raise IndexError(f"the base PDF has no page {index}")
        if not 0 <= source_index < len(sources):
            raise IndexError(f"the overlay PDF has no page {source_index}")
    overlays = PageOverlays(pdf, prefix=prefix)
    for index, source_index in sorted(placements.items()):
        source = sources[source_index].obj
        if not content_streams(source):
            continue  # nothing drawn on that overlay page
        resources = source.get("/Resources")
        if isinstance(resources, Dictionary) and not resources.is_indirect:
            # Copied whole by qpdf: import_foreign rebuilds direct dictionaries itself and
            # stumbles on the plain numbers nested in them (reportlab writes /ExtGState inline).
            source.Resources = overlay.make_indirect(resources)
        page = pages[index].obj
        form = form_xobject(pdf, source_page=source, bbox=media_box(page))
        overlays.add(page, form)


def overlay_pages(
    base: bytes,
    overlay: bytes,
    placements: Mapping[int, int],
    *,
    prefix: str = DEFAULT_PREFIX,
) -> bytes:
    """``base`` with page ``placements[i]`` of ``overlay`` drawn over its page ``i``.

    Pages not in ``placements`` are left as they are. Raises PdfUnreadable for bytes that are not
    a PDF and IndexError for a page number either file does not have.
    """
    pdf = open_pdf(base)
    add_overlays(pdf, open_pdf(overlay), placements, prefix=prefix)
    return save_pdf(pdf)
