"""Registering faces with reportlab, once per process."""

from __future__ import annotations

import threading

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from core.engine.fonts.face import FontFace

_registered: set[str] = set()
_lock = threading.Lock()


def register_face(face: FontFace) -> str:
    """Make ``face`` usable in reportlab and return the font name to draw with.

    Base-14 faces need no registration. TrueType faces are parsed by reportlab once per process
    (that parse is the expensive part, hence the cache) and embedded as subsets when drawn.
    """
    name = face.key
    if face.path is None or name in _registered:
        return name
    with _lock:
        if name not in _registered:
            font = TTFont(name, str(face.path))
            # reportlab silently reuses an already registered font with the same PostScript
            # name instead of this file. Google serves every unicode subset of a face as its own
            # file under one PostScript name, so without a distinct name the Cyrillic file would
            # be drawn with the Latin one's glyphs. The private registry is the only place that
            # says whether the name is taken.
            if font.face.name in getattr(pdfmetrics, "_dynFaceNames", {}):
                font.face.name += b"-" + name.rsplit("-", 1)[-1].encode()
            pdfmetrics.registerFont(font)
            _registered.add(name)
    return name
