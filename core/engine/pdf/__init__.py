"""PDF primitives shared by every engine that reads or writes PDFs (fill, import, signing).

pikepdf (qpdf) parses, repairs and serializes; these modules add the few rules of our own:
how a file is opened (repair, permission-only encryption), how it is saved, page geometry and
building objects.
"""

from core.engine.pdf.document import (
    PdfPasswordRequired,
    PdfUnreadable,
    open_pdf,
    save_pdf,
)
from core.engine.pdf.objects import form_xobject, import_foreign, number, rect_array
from core.engine.pdf.pages import (
    INHERITABLE_PAGE_KEYS,
    PageDrawing,
    content_streams,
    inherited,
)

__all__ = [
    "INHERITABLE_PAGE_KEYS",
    "PageDrawing",
    "PdfPasswordRequired",
    "PdfUnreadable",
    "content_streams",
    "form_xobject",
    "import_foreign",
    "inherited",
    "number",
    "open_pdf",
    "rect_array",
    "save_pdf",
]
