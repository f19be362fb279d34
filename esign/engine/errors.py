"""Errors of the e-signature engine. Each has a stable ``code``; problems carry dotted paths."""

from __future__ import annotations

from core.engine.problems import EngineError, InvalidInput


class EsignError(EngineError):
    code = "esign_error"


class StampInvalid(InvalidInput, EsignError):
    """A stamp cannot be drawn: a page the document does not have, an unusable signature image.

    Paths name the stamp by its index in the sequence given and the attribute at fault
    (``stamps.2.image_png``); the service maps them to the field they stand for.
    """


class HandwritingFontUnusable(EsignError):
    """The configured handwriting font is not a TrueType-outline file: a deployment mistake."""

    code = "handwriting_font_unusable"


class PageUnavailable(EsignError):
    """A page that cannot be drawn: the document has no such page, or cannot be read."""

    code = "page_unavailable"
