"""Writing the filled PDF as an incremental update of the template's base PDF.

The base PDF is left byte for byte as it is; the new and changed objects (overlay forms, fonts,
page dictionaries, the page tree, widgets, metadata) are appended with their own xref section.
Nothing of the template is parsed beyond its page tree, which keeps large templates fast.
Base PDFs are written by pypdf at import, with a classic xref table, which this relies on; any
other base is first rewritten once (slow path).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterable

from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    EncodedStreamObject,
    IndirectObject,
    NameObject,
    NullObject,
    PdfObject,
    StreamObject,
)


def _startxref(data: bytes) -> int:
    position = data.rfind(b"startxref")
    if position < 0:
        raise ValueError("no startxref")
    return int(data[position + 9 :].split()[0])


def _classic_xref(data: bytes) -> bool:
    try:
        offset = _startxref(data)
    except (ValueError, IndexError):
        return False
    return data[offset : offset + 4] == b"xref"


def normalized_base(data: bytes) -> bytes:
    """The base as a file with a classic xref table (rewritten once when it is not)."""
    if _classic_xref(data):
        return data
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data), strict=False))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


class IncrementalWriter:
    def __init__(self, base: bytes) -> None:
        base = normalized_base(base)
        self.base = base if base.endswith(b"\n") else base + b"\n"
        self.reader = PdfReader(io.BytesIO(self.base), strict=False)
        self.previous_xref = _startxref(self.base)
        size = self.reader.trailer["/Size"]
        if not isinstance(size, int):
            raise ValueError("the base PDF's trailer has no /Size")
        self.next_id = int(size)
        self.objects: dict[int, bytes] = {}
        self._imported: dict[tuple[int, int], IndirectObject] = {}

    # --- objects ------------------------------------------------------------------------------
    def reserve(self) -> IndirectObject:
        ref = IndirectObject(self.next_id, 0, None)
        self.next_id += 1
        return ref

    def put(self, ref: IndirectObject, obj: PdfObject) -> None:
        buffer = io.BytesIO()
        buffer.write(f"{ref.idnum} 0 obj\n".encode())
        obj.write_to_stream(buffer)
        buffer.write(b"\nendobj\n")
        self.objects[ref.idnum] = buffer.getvalue()

    def add(self, obj: PdfObject) -> IndirectObject:
        ref = self.reserve()
        self.put(ref, obj)
        return ref

    def import_object(self, obj: PdfObject, source: PdfReader) -> PdfObject:
        """A copy of ``obj`` from another PDF whose indirect objects become objects of this file.

        Each source object is copied once, however often it is referenced (fonts shared by
        every overlay page are written once).
        """
        if isinstance(obj, IndirectObject):
            key = (id(source), obj.idnum)
            ref = self._imported.get(key)
            if ref is None:
                ref = self._imported[key] = self.reserve()
                self.put(ref, self.import_object(obj.get_object() or NullObject(), source))
            return ref
        if isinstance(obj, StreamObject):
            copy = EncodedStreamObject()
            for key, value in obj.items():
                if key != "/Length":
                    copy[NameObject(key)] = self.import_object(value, source)
            copy._data = obj._data
            return copy
        if isinstance(obj, DictionaryObject):
            return DictionaryObject(
                {NameObject(k): self.import_object(v, source) for k, v in obj.items()}
            )
        if isinstance(obj, ArrayObject):
            return ArrayObject(self.import_object(v, source) for v in obj)
        return obj

    # --- output -------------------------------------------------------------------------------
    def finish(self, *, root: IndirectObject, info: IndirectObject) -> bytes:
        out = bytearray(self.base)
        offsets: dict[int, int] = {}
        for idnum in sorted(self.objects):
            offsets[idnum] = len(out)
            out += self.objects[idnum]
        xref_at = len(out)
        out += b"xref\n"
        for start, run in _runs(sorted(offsets)):
            out += f"{start} {len(run)}\n".encode()
            for idnum in run:
                out += f"{offsets[idnum]:010d} 00000 n \n".encode()
        digest = hashlib.md5(bytes(out[len(self.base) :]), usedforsecurity=False).hexdigest()
        original_id = self.reader.trailer.get("/ID")
        first = original_id[0].original_bytes.hex() if original_id else digest
        trailer = (
            f"trailer\n<< /Size {self.next_id} /Root {root.idnum} 0 R /Info {info.idnum} 0 R "
            f"/Prev {self.previous_xref} /ID [<{first}> <{digest}>] >>\n"
            f"startxref\n{xref_at}\n%%EOF\n"
        )
        out += trailer.encode()
        return bytes(out)


def _runs(ids: Iterable[int]) -> list[tuple[int, list[int]]]:
    runs: list[tuple[int, list[int]]] = []
    for idnum in ids:
        if runs and runs[-1][1][-1] == idnum - 1:
            runs[-1][1].append(idnum)
        else:
            runs.append((idnum, [idnum]))
    return runs
