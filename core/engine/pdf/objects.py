"""PDF objects: building them with pikepdf (numbers, rectangles, objects of other files, form
XObjects) and reading pypdf's with their types (``as_dict``, ``as_array``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

import pikepdf
from pikepdf import Array, Dictionary, Name
from pypdf.errors import PdfReadError
from pypdf.generic import ArrayObject, DictionaryObject

_Resolved = TypeVar("_Resolved")


def number(value: float) -> int | float:
    """An integer when ``value`` is whole (shorter output), else rounded to 4 decimals."""
    return int(value) if float(value).is_integer() else round(float(value), 4)


def rect_array(values: Iterable[float]) -> Array:
    return Array([number(v) for v in values])


def import_foreign(pdf: pikepdf.Pdf, obj: pikepdf.Object) -> pikepdf.Object:
    """``obj`` of another PDF, copied into ``pdf`` with everything it references.

    qpdf copies each foreign indirect object once per source file, however often it is
    asked, so fonts shared by many overlay pages are written once. Direct containers (a page's
    /Resources is often one) are rebuilt around the copies of what they reference.
    """
    if not isinstance(obj, pikepdf.Object):
        return obj  # numbers and booleans come back as plain Python values
    if obj.is_indirect:
        return pdf.copy_foreign(obj)
    if isinstance(obj, Name):
        return Name(str(obj))
    if isinstance(obj, Dictionary):
        return Dictionary({key: import_foreign(pdf, value) for key, value in obj.items()})
    if isinstance(obj, Array):
        return Array([import_foreign(pdf, value) for value in obj])
    return obj


def form_xobject(
    pdf: pikepdf.Pdf,
    *,
    source_page: Dictionary,
    bbox: Iterable[float],
    matrix: tuple[float, ...] | None = None,
) -> pikepdf.Stream:
    """A form XObject in ``pdf`` drawing the content of ``source_page`` (of another PDF), within
    ``bbox`` (x0, y0, x1, y1) of its own space.

    The page's content stream is copied still encoded; its resources come along.
    """
    contents = source_page.Contents
    if isinstance(contents, Array):  # several streams: one form needs their concatenation
        data = b"\n".join(part.read_bytes() for part in contents)
        form = pikepdf.Stream(pdf, data)
    else:
        form = pikepdf.Stream(pdf, b"")
        # The filter entries are rebuilt here: objects of another file cannot be reused as is.
        filters = contents.get("/Filter")
        parms = contents.get("/DecodeParms")
        form.write(
            contents.read_raw_bytes(),
            filter=import_foreign(pdf, filters) if filters is not None else None,  # type: ignore[arg-type]
            decode_parms=import_foreign(pdf, parms) if parms is not None else None,  # type: ignore[arg-type]
        )
    form.Type = Name.XObject
    form.Subtype = Name.Form
    form.BBox = rect_array(bbox)
    if matrix is not None and tuple(matrix) != (1, 0, 0, 1, 0, 0):
        form.Matrix = Array([number(v) for v in matrix])
    resources = source_page.get("/Resources")
    form.Resources = import_foreign(pdf, resources) if resources is not None else Dictionary()
    return pdf.make_indirect(form)


# pypdf types every value as the loose PdfObject; these resolve a reference and check the type
# the PDF must have there, so a malformed file fails as unreadable (PdfReadError), not later.
def _resolved_as(value: Any, kind: type[_Resolved], what: str) -> _Resolved:
    resolved = value.get_object() if value is not None else None
    if not isinstance(resolved, kind):
        raise PdfReadError(f"expected {what}")
    return resolved


def as_dict(value: Any) -> DictionaryObject:
    """``value`` resolved to the dictionary it must be; PdfReadError when it is not one."""
    return _resolved_as(value, DictionaryObject, "a dictionary")


def as_array(value: Any) -> ArrayObject:
    """``value`` resolved to the array it must be; PdfReadError when it is not one."""
    return _resolved_as(value, ArrayObject, "an array")
