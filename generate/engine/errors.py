"""Errors of the generate engine. Each has a stable ``code``; request problems carry dotted paths.

The service turns them into the API's domain errors (400 with the paths, 413, 422, 503...); the
engine itself knows no HTTP.
"""

from __future__ import annotations

from core.engine.problems import EngineError, InvalidInput, WorkersBusy, memory_limit_text


class GenerateError(EngineError):
    """Base of the engine's errors. They travel back from render workers by pickle, so each
    subclass with its own constructor says how it is rebuilt (``__reduce__``)."""

    code = "generate_error"


class GenerateInvalid(InvalidInput, GenerateError):
    """The request body does not describe a document: wrong shapes, unknown fonts, bad lengths."""


class SourceTooLarge(GenerateError):
    """The HTML/CSS or Markdown text (title and logo URI included) is over the size cap."""

    code = "source_too_large"
    kind = "too_large"

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            f"The document source is {size} bytes; the limit is {limit} bytes of HTML, CSS "
            "and Markdown text."
        )

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.size, self.limit))


class PageLimitExceeded(GenerateError):
    """Laid out, the document has more pages than allowed; it is refused before it is written."""

    code = "page_limit_exceeded"
    kind = "unprocessable"

    def __init__(self, pages: int, limit: int) -> None:
        self.pages = pages
        self.limit = limit
        super().__init__(f"The document would have {pages} pages; the limit is {limit}.")

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.pages, self.limit))


class TableCellLimitExceeded(GenerateError):
    """The document has more table cells than allowed: refused before layout
    (`generate.engine.bounds`), where each cell costs the renderer time and memory."""

    code = "table_cell_limit_exceeded"
    kind = "unprocessable"

    def __init__(self, cells: int, limit: int) -> None:
        self.cells = cells
        self.limit = limit
        super().__init__(
            f"The document has {cells} table cells; the limit is {limit}. Split a long table "
            "over several documents."
        )

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.cells, self.limit))


class ElementLimitExceeded(GenerateError):
    """The document has more HTML elements than allowed: refused before layout, as
    `TableCellLimitExceeded` is."""

    code = "element_limit_exceeded"
    kind = "unprocessable"

    def __init__(self, elements: int, limit: int) -> None:
        self.elements = elements
        self.limit = limit
        super().__init__(f"The document has {elements} HTML elements; the limit is {limit}.")

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.elements, self.limit))


class RenderTimeout(GenerateError):
    """Rendering took longer than allowed; the worker doing it was killed."""

    code = "render_timeout"
    kind = "unprocessable"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(
            f"The document took longer than {seconds:g} seconds to render and was stopped."
        )

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.seconds,))


class RenderCpuLimit(GenerateError):
    """Rendering used more CPU time than its budget (a base plus an allowance per page laid
    out, `generate.engine.cpu_budget`); the render was stopped."""

    code = "render_cpu_limit"
    kind = "unprocessable"

    def __init__(self, seconds: float, pages: int) -> None:
        self.seconds = seconds
        self.pages = pages
        super().__init__(
            f"The document needed more than {seconds:g} seconds of processor time to render "
            f"({pages} pages laid out by then) and was stopped."
        )

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.seconds, self.pages))


class RenderOutOfMemory(GenerateError):
    """Rendering needed more memory than a worker may use (``limit_bytes``; 0 if unknown)."""

    code = "render_out_of_memory"
    kind = "unprocessable"

    def __init__(self, limit_bytes: int = 0) -> None:
        self.limit_bytes = limit_bytes
        super().__init__(
            "The document needs more memory to render than is allowed"
            f"{memory_limit_text(limit_bytes)}; large images and very long tables need the most."
        )

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.limit_bytes,))


class RenderBusy(WorkersBusy, GenerateError):
    """Every render worker stayed busy for as long as a request may wait for one."""

    code = "render_busy"
    workers = "a render worker"
    message = "Every PDF renderer is busy; try again shortly."


class RenderCrashed(GenerateError):
    """The render worker's process ended while it rendered the document: killed by a signal
    (SIGSEGV in the renderer's C libraries when the document exhausts the worker's address
    space, SIGKILL from the kernel's out-of-memory killer) or exited. The document is the likely
    cause, so it is refused as a document over a limit is (422): sent again, it would end the
    same way. ``detail`` (for logs only) says how the process ended, never request data."""

    code = "render_crashed"
    kind = "unprocessable"

    def __init__(self, detail: str) -> None:
        self.detail = self.log_detail = detail
        super().__init__(
            "The document could not be rendered: the renderer stopped while rendering it, most "
            "likely out of memory. Very long tables and large images need the most."
        )

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.detail,))


class RenderUnavailable(GenerateError):
    """No render worker could be started (the host short of memory or processes): not the
    document's fault, so the caller may send it again shortly (503). ``detail`` is for logs."""

    code = "render_unavailable"
    kind = "busy"
    retry_after_seconds = 10

    def __init__(self, detail: str) -> None:
        self.detail = self.log_detail = detail
        super().__init__("The PDF renderer could not be started; try again shortly.")

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.detail,))


class RenderFailed(GenerateError):
    """The renderer raised an unexpected exception on this document (a WeasyPrint limitation or
    bug met by unusual HTML or CSS). The worker is replaced; ``detail`` (type and frames, for
    logs only) says where it failed in the code, ``where`` (from `render.describe_failure`, for
    the caller) where in the document: the CSS declaration or rule, the element and page."""

    code = "render_failed"
    kind = "unprocessable"

    def __init__(self, detail: str, where: str | None = None) -> None:
        self.detail = self.log_detail = detail
        self.where = where
        super().__init__(
            "The document could not be rendered: the renderer failed "
            f"{where or 'on something in its HTML or CSS'}."
        )

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.detail, self.where))
