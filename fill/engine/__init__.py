"""The fill engine: a template PDF, its field spec and JSON data in, a filled PDF out.

Pure Python (no Django): fonts and images come in as objects, limits as a frozen dataclass.
"""

from fill.engine.errors import FillError, FillInvalid, FillLimitExceeded
from fill.engine.fill import FillContext, FillLimits, fill_pdf
from fill.engine.payload import FillOptions, FillRequest, parse_fill_request

__all__ = [
    "FillContext",
    "FillError",
    "FillInvalid",
    "FillLimitExceeded",
    "FillLimits",
    "FillOptions",
    "FillRequest",
    "fill_pdf",
    "parse_fill_request",
]
