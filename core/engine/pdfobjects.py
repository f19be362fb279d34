"""Typed access to pypdf objects, whose values are all typed as the loose ``PdfObject``."""

from __future__ import annotations

from typing import Any

from pypdf.errors import PdfReadError
from pypdf.generic import ArrayObject, DictionaryObject, StreamObject


def as_dict(value: Any) -> DictionaryObject:
    """``value`` resolved to the dictionary it must be; PdfReadError when it is not one."""
    resolved = value.get_object() if value is not None else None
    if not isinstance(resolved, DictionaryObject):
        raise PdfReadError("expected a dictionary")
    return resolved


def as_array(value: Any) -> ArrayObject:
    resolved = value.get_object() if value is not None else None
    if not isinstance(resolved, ArrayObject):
        raise PdfReadError("expected an array")
    return resolved


def as_stream(value: Any) -> StreamObject:
    resolved = value.get_object() if value is not None else None
    if not isinstance(resolved, StreamObject):
        raise PdfReadError("expected a stream")
    return resolved
