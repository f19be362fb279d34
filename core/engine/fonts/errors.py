"""Errors of the fonts engine, each with a stable ``code``.

Services turn them into a 400 on ``fontFamily`` (FontNotFound) or a clear error when the catalog
cannot be reached (FontUnavailable); the engine itself knows no HTTP.
"""

from __future__ import annotations

from typing import ClassVar

from core.engine.problems import EngineError


class FontError(EngineError):
    """Base of the fonts engine's errors; ``family`` is the name the caller asked for."""

    code: ClassVar[str] = "font_error"

    def __init__(self, family: str, message: str) -> None:
        self.family = family
        self.message = message
        super().__init__(message)


class FontNotFound(FontError):
    """The name is neither a built-in font nor a catalog family (names are case-sensitive)."""

    code = "font_not_found"
    kind = "invalid"
    path = "fontFamily"

    def __init__(self, family: str, *, suggestion: str | None = None) -> None:
        message = f'Unknown font family "{family}".'
        if suggestion is not None:
            message += f' Font names are case-sensitive: did you mean "{suggestion}"?'
        super().__init__(family, message)


class FontUnavailable(FontError):
    """A known family whose files could not be fetched, or are not usable TrueType fonts.

    ``detail`` says why (for logs); the message names only the family, so no internal URL or
    path reaches an API client.
    """

    code = "font_unavailable"
    kind = "unavailable"

    def __init__(self, family: str, detail: str) -> None:
        self.detail = self.log_detail = detail
        super().__init__(family, f'Font family "{family}" could not be fetched.')
