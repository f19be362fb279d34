"""Errors of the template engine. Each has a stable ``code``."""

from __future__ import annotations

from core.engine.problems import EngineError


class ImportRefused(EngineError):
    """The PDF cannot become a template. ``reason`` is stable; the message is for people."""

    code = "import_refused"
    kind = "invalid"
    path = "file"

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)
