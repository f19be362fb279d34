"""The e-signature engine: signers' stamps drawn onto documents.

Pure Python (no Django): documents come in as bytes, stamps as frozen dataclasses, fonts as a
FontLibrary and a font file's path; the clock is the caller's (dates and captions arrive as
text).
"""

from esign.engine.errors import EsignError, HandwritingFontUnusable, StampInvalid
from esign.engine.stamp import STAMP_KINDS, Stamp, StampKind, stamp_pdf

__all__ = [
    "STAMP_KINDS",
    "EsignError",
    "HandwritingFontUnusable",
    "Stamp",
    "StampInvalid",
    "StampKind",
    "stamp_pdf",
]
