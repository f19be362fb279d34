"""Editing an opened PDF, then writing it: whole (qpdf) or as an incremental update.

An editor gives what an engine needs to change a document: new indirect objects, new streams,
existing objects it changed in place, the document information dictionary, and the bytes at the
end. ``Rewrite`` is qpdf's whole-file save. ``IncrementalUpdate`` leaves the original bytes as
they are and appends only the new and changed objects with a new cross-reference section whose
/Prev is the original's (ISO 32000-1, 7.5.6), a table or a stream as the original has.

Why it is faster: the whole-file save parses and writes every object of the template; worse,
qpdf's numbering of a new indirect object first resolves every object of the file (to be sure
of the highest number). The update never does either: its new objects take numbers from /Size
up, allocated in a small scratch document where the streams are made (so making a stream costs
nothing in the template), and each appears in the template as an indirect object of that number.
Every object is still serialized by qpdf (``unparse``); only the file's framing is written here.

An update is made only where it is sound; else ``open_for_edit`` gives a ``Rewrite`` (see
``NotIncremental``).
"""

from __future__ import annotations

import hashlib
import re
import zlib
from typing import TypeVar

import pikepdf
from pikepdf import Dictionary, Name

from core.engine.pdf.document import open_pdf, save_pdf

REFERENCE = re.compile(rb"(\d+) (\d+) R")
STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF")
OBJECT_HEADER = re.compile(rb"\d+\s+\d+\s+obj\b")
T = TypeVar("T", bound=pikepdf.Object)
COMPRESS_FROM = 64  # bytes: smaller new streams (q, Q, a "Do") are written as they are


class NotIncremental(Exception):
    """An incremental update of this file would not be sound; the reason says why.

    - encrypted: appended objects would have to be encrypted with the file's key, and the
      whole-file save writes the output unencrypted anyway (permission-only encryption);
    - repaired: qpdf had to repair the file (a broken xref table, bad offsets): an update would
      chain its /Prev to the broken section, so the repaired file is written whole;
    - linearized: the hint tables would describe a file that no longer is the one on disk;
    - no startxref, or one that points at neither an xref table nor an xref stream;
    - a new object's number taken in the original (a /Size smaller than its objects).
    """


class Rewrite:
    """Changes made in ``pdf`` itself, saved whole by qpdf (``save_pdf``)."""

    incremental = False

    def __init__(self, pdf: pikepdf.Pdf) -> None:
        self.pdf = pdf
        # Where new streams are made (form XObjects, content streams).
        self.stream_pdf: pikepdf.Pdf = pdf

    def indirect(self, obj: T) -> T:
        return self.pdf.make_indirect(obj)

    def stream(self, data: bytes, entries: Dictionary | None = None) -> pikepdf.Object:
        stream = pikepdf.Stream(self.pdf, data)
        for key, value in (entries or Dictionary()).items():
            stream[key] = value
        return self.pdf.make_indirect(stream)

    def adopt(self, stream: pikepdf.Object) -> pikepdf.Object:
        return stream

    def changed(self, obj: pikepdf.Object) -> None:
        """``obj``, an object of the original, was changed in place (the save writes it all)."""

    def info(self) -> pikepdf.Object:
        return self.pdf.docinfo

    def save(self) -> bytes:
        return save_pdf(self.pdf)


class IncrementalUpdate:
    """Changes to ``pdf`` (opened from ``data``) written as an update appended to ``data``.

    Existing objects changed in place must be named with ``changed``; everything new must be
    made with ``indirect``, ``stream`` or (for streams made in ``stream_pdf``, form XObjects
    with what they copy from another file) ``adopt``. The update holds the changed objects and
    every new object they reach.
    """

    incremental = True

    def __init__(self, pdf: pikepdf.Pdf, data: bytes) -> None:
        if pdf.is_encrypted:
            raise NotIncremental("encrypted")
        if pdf.get_warnings():
            raise NotIncremental("repaired")
        if not data.startswith(b"%PDF-"):
            raise NotIncremental("offset header")  # xref offsets would not count from byte 0
        if pdf.is_linearized:
            raise NotIncremental("linearized")
        self.pdf = pdf
        self.data = data
        self.previous = _last_xref(data)
        self.xref_stream = OBJECT_HEADER.match(data, self.previous) is not None
        size = pdf.trailer.get("/Size")
        if not isinstance(size, int) or size < 3:
            raise NotIncremental("no /Size")
        self.first_new: int = size  # objects numbered below are the original's
        self._objects: set[int] = set()  # numbers of new objects held in ``pdf``
        # Opening may already have made objects: pikepdf writes attributes inherited from the
        # page tree into each page, shared ones as new objects numbered from /Size.
        free = size
        while pdf.get_object((free, 0)) is not None:
            self._objects.add(free)
            free += 1
        # New streams are made here: making one in ``pdf`` would resolve all of its objects.
        # Its numbers start at the first free one, and new objects of ``pdf`` take theirs from
        # it too, so the two never give one number twice.
        self.stream_pdf: pikepdf.Pdf = pikepdf.new()
        self.stream_pdf._replace_object((free - 1, 0), Dictionary())
        self._changed: dict[tuple[int, int], pikepdf.Object] = {}
        self._info: pikepdf.Object | None = None

    # --- making and naming objects --------------------------------------------------------------
    def _number(self) -> int:
        return int(self.stream_pdf.make_indirect(Dictionary()).objgen[0])

    def _place(self, number: int, obj: pikepdf.Object) -> pikepdf.Object:
        """``obj`` as object ``number`` of ``pdf`` (a copy when it is a container)."""
        if self.pdf.get_object((number, 0)) is not None:
            raise NotIncremental("object number taken")
        self.pdf._replace_object((number, 0), obj)
        return self.pdf.get_object((number, 0))

    def indirect(self, obj: T) -> T:
        """A new indirect object of ``pdf`` holding ``obj`` (a dictionary or an array); use
        the object returned, not ``obj``."""
        number = self._number()
        self._objects.add(number)
        placed = self._place(number, obj)
        assert isinstance(placed, type(obj))  # the same kind of object, now indirect
        return placed

    def stream(self, data: bytes, entries: Dictionary | None = None) -> pikepdf.Object:
        stream = pikepdf.Stream(self.stream_pdf, data)
        for key, value in (entries or Dictionary()).items():
            stream[key] = value
        return self.adopt(self.stream_pdf.make_indirect(stream))

    def adopt(self, stream: pikepdf.Object) -> pikepdf.Object:
        """A stream made in ``stream_pdf``, to be referenced from objects of ``pdf``.

        What ``pdf`` holds under its number is a stand-in that is never written: the update
        writes the stream itself, from ``stream_pdf``.
        """
        return self._place(int(stream.objgen[0]), Dictionary())

    def changed(self, obj: pikepdf.Object) -> None:
        if not obj.is_indirect:
            raise ValueError("only an indirect object can be changed in place")
        self._changed[obj.objgen] = obj

    def info(self) -> pikepdf.Object:
        if self._info is None:
            info = self.pdf.trailer.get("/Info")
            if isinstance(info, Dictionary) and info.is_indirect:
                self.changed(info)
                self._info = info
            else:  # none, or a direct one (not allowed, but seen): a new object
                entries = dict(info.items()) if isinstance(info, Dictionary) else {}
                self._info = self.indirect(Dictionary(entries))
        return self._info

    # --- writing --------------------------------------------------------------------------------
    def save(self) -> bytes:
        self.changed(self.pdf.Root)  # written anyway: the update is the newest catalog's home
        info = self.pdf.trailer.get("/Info")
        if self._info is None and isinstance(info, Dictionary) and not info.is_indirect:
            self.info()  # a direct /Info (not allowed, but seen) moves into an object of its own
        out = bytearray(self.data)
        if not out.endswith((b"\n", b"\r")):
            out += b"\n"
        offsets: dict[tuple[int, int], int] = {}
        pending = list(self._changed.values())
        if self._info is not None:  # a new one is reached from the trailer only
            pending.append(self._info)
        while pending:
            obj = pending.pop()
            objgen = (int(obj.objgen[0]), int(obj.objgen[1]))
            if objgen in offsets:
                continue
            offsets[objgen] = len(out)
            head, data = self._serialize(obj)
            out += b"%d %d obj\n" % objgen + head
            if data is not None:
                out += b"\nstream\n" + data + b"\nendstream"
            out += b"\nendobj\n"
            in_stream_pdf = objgen[0] >= self.first_new and objgen[0] not in self._objects
            for match in REFERENCE.finditer(head):
                number, generation = int(match[1]), int(match[2])
                if number < self.first_new:
                    if in_stream_pdf:  # a scratch object can only reach new objects
                        raise NotIncremental("a new stream reaches the original")
                    continue  # an object of the original: changed ones are written already
                if (number, generation) in offsets:
                    continue
                source = self.pdf if number in self._objects else self.stream_pdf
                found = source.get_object((number, generation))
                if found is not None:  # a string that reads like a reference is skipped
                    pending.append(found)
        if self.pdf.get_warnings():  # objects read since opening were damaged
            raise NotIncremental("repaired")
        return bytes(self._finish(out, offsets))

    @staticmethod
    def _serialize(obj: pikepdf.Object) -> tuple[bytes, bytes | None]:
        """The object as qpdf writes it (a stream: its dictionary) and a stream's data."""
        if not isinstance(obj, pikepdf.Stream):
            return bytes(obj.unparse(resolved=True)), None
        data = obj.read_raw_bytes()
        entries = Dictionary({k: v for k, v in obj.stream_dict.items() if k != "/Length"})
        if "/Filter" not in entries and len(data) >= COMPRESS_FROM:
            data = zlib.compress(data)
            entries.Filter = Name.FlateDecode
        entries.Length = len(data)
        return bytes(entries.unparse()), data

    def _finish(self, out: bytearray, offsets: dict[tuple[int, int], int]) -> bytearray:
        root = self.pdf.Root.objgen
        # The original's /Info when the update did not touch it: the newest trailer must name it.
        found = self._info if self._info is not None else self.pdf.trailer.get("/Info")
        info = found.objgen if isinstance(found, Dictionary) and found.is_indirect else None
        digest = hashlib.md5(bytes(out[len(self.data) :]), usedforsecurity=False).digest()
        original_id = self.pdf.trailer.get("/ID")
        first = (
            bytes(original_id[0])
            if isinstance(original_id, pikepdf.Array) and len(original_id) == 2
            else hashlib.md5(self.data, usedforsecurity=False).digest()
        )
        trailer = (
            b"/Root %d %d R " % root
            + (b"/Info %d %d R " % info if info is not None else b"")
            + b"/ID [<%s><%s>] " % (first.hex().encode(), digest.hex().encode())
            + b"/Prev %d" % self.previous
        )
        xref_at = len(out)
        if self.xref_stream:
            number = self._number()  # above every number given, written or not
            offsets[(number, 0)] = xref_at
            size = number + 1
            width = max(1, (xref_at.bit_length() + 7) // 8)
            rows = b"".join(
                b"\x01" + offsets[objgen].to_bytes(width, "big") + objgen[1].to_bytes(2, "big")
                for objgen in sorted(offsets)
            )
            index = b" ".join(b"%d %d" % run for run in _runs(sorted(n for n, _ in offsets)))
            out += (
                b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 %d 2] /Index [%s] %s /Length %d >>"
                b"\nstream\n" % (number, size, width, index, trailer, len(rows))
            )
            out += rows + b"\nendstream\nendobj\n"
        else:
            size = max(max(n for n, _ in offsets) + 1, self.first_new)
            out += b"xref\n"
            by_number = sorted(offsets)
            position = 0
            for start, count in _runs([n for n, _ in by_number]):
                out += b"%d %d\n" % (start, count)
                for objgen in by_number[position : position + count]:
                    out += b"%010d %05d n \n" % (offsets[objgen], objgen[1])
                position += count
            out += b"trailer\n<< /Size %d %s >>\n" % (size, trailer)
        out += b"startxref\n%d\n%%%%EOF\n" % xref_at
        return out


def _last_xref(data: bytes) -> int:
    """The offset of the original's last cross-reference section, checked to be one."""
    matches = list(STARTXREF.finditer(data, max(0, len(data) - 2048)))
    if not matches:
        raise NotIncremental("no startxref")
    offset = int(matches[-1][1])
    if data.startswith(b"xref", offset) or OBJECT_HEADER.match(data, offset) is not None:
        return offset
    raise NotIncremental("startxref points at no xref section")


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Sorted object numbers as (first, count) runs of consecutive numbers."""
    runs: list[tuple[int, int]] = []
    for number in numbers:
        if runs and runs[-1][0] + runs[-1][1] == number:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((number, 1))
    return runs


Editor = Rewrite | IncrementalUpdate


def open_for_edit(data: bytes, *, incremental: bool = True) -> Editor:
    """``data`` opened for changes: an incremental update where sound (and asked), else a
    whole-file rewrite."""
    pdf = open_pdf(data)
    if incremental:
        try:
            return IncrementalUpdate(pdf, data)
        except NotIncremental:
            pass
    return Rewrite(pdf)
