"""PDF primitives shared by every engine that reads or writes PDFs (fill, import, signing).

pikepdf (qpdf) parses, repairs and serializes; these modules add the few rules of our own:
how a file is opened (repair, permission-only encryption), how it is saved, page geometry,
building objects, reading pypdf's with their types, and drawing one PDF's pages over another's.
"""

from core.engine.pdf.document import (
    PdfPasswordRequired,
    PdfUnreadable,
    open_pdf,
    save_pdf,
)
from core.engine.pdf.edit import (
    Editor,
    IncrementalUpdate,
    NotIncremental,
    Rewrite,
    open_for_edit,
)
from core.engine.pdf.objects import (
    as_array,
    as_dict,
    form_xobject,
    import_foreign,
    number,
    rect_array,
)
from core.engine.pdf.pages import (
    INHERITABLE_PAGE_KEYS,
    PageDrawing,
    PageOverlays,
    add_overlays,
    content_streams,
    inherited,
    media_box,
    overlay_pages,
)

__all__ = [
    "INHERITABLE_PAGE_KEYS",
    "Editor",
    "IncrementalUpdate",
    "NotIncremental",
    "PageDrawing",
    "PageOverlays",
    "PdfPasswordRequired",
    "PdfUnreadable",
    "Rewrite",
    "add_overlays",
    "as_array",
    "as_dict",
    "content_streams",
    "form_xobject",
    "import_foreign",
    "inherited",
    "media_box",
    "number",
    "open_for_edit",
    "open_pdf",
    "overlay_pages",
    "rect_array",
    "save_pdf",
]
