"""The engines' errors: problems with an input, named by dotted path (``data.3.fontSize``),
and the base every engine error derives from, which declares what kind of failure it is.

Engines know no HTTP: ``core.errors.service_error_for`` turns an error's ``kind`` into the
API's wire error, in one place for every service.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, Literal, Self

# invalid: the caller's input is wrong (400, naming ``path`` or the problems);
# too_large: the input is over a size limit (413); unprocessable: valid, but the document
# cannot be produced within the limits (422); busy: try again shortly (503); unavailable: a
# resource we depend on cannot be had now (503); internal: our fault (500, logged).
ErrorKind = Literal["invalid", "too_large", "unprocessable", "busy", "unavailable", "internal"]


class EngineError(Exception):
    """Base of every engine's errors: a stable ``code`` and the ``kind`` of failure.

    ``path`` names the input that is wrong ("" for the whole input); ``log_detail`` is what the
    service logs beside the code, and must never hold request data.
    """

    code: ClassVar[str] = "engine_error"
    kind: ClassVar[ErrorKind] = "internal"
    path: str = ""
    log_detail: str | None = None
    # For "busy": when the caller may try again (Retry-After); None to leave it to the service.
    retry_after_seconds: int | None = None

    def __init__(self, *args: object, log_detail: str | None = None) -> None:
        super().__init__(*args)
        # A subclass may have set its own before calling this: only a given one replaces it.
        if log_detail is not None:
            self.log_detail = log_detail


@dataclass(frozen=True)
class Problem:
    """One thing wrong: where (a dotted path into the input) and what."""

    path: str
    message: str


class InvalidInput(EngineError):
    """The input has problems; each engine's own error (FillInvalid...) is one of these."""

    code = "invalid"
    kind = "invalid"

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in self.problems))

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        # Errors travel back from generate's render workers by pickle.
        return (type(self), (self.problems,))

    @classmethod
    def single(cls, path: str, message: str) -> Self:
        return cls([Problem(path, message)])


class WorkersBusy(EngineError):
    """Every worker of a process pool stayed busy for as long as a request may wait for one
    (``seconds``), or as many requests as allowed were already waiting (``queue_full``): one
    shape for every pool (core.engine.process_pool's ``PoolErrors.busy``). A subclass names its
    workers for the log (``workers``, with its article) and says ``message`` to the caller."""

    kind = "busy"
    workers: ClassVar[str] = "a worker"
    message: ClassVar[str] = "Every worker is busy; try again shortly."

    def __init__(self, seconds: float, queue_full: bool = False) -> None:
        self.seconds = seconds
        self.queue_full = queue_full
        self.log_detail = (
            f"as many requests as allowed were already waiting for {self.workers}"
            if queue_full
            else f"no {self.workers.split(' ', 1)[1]} became free within {seconds:g} seconds"
        )
        # Long enough for a job to end, short enough for a client to retry soon.
        self.retry_after_seconds = 5 if queue_full else max(1, min(30, round(seconds / 2)))
        super().__init__(self.message)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.seconds, self.queue_full))


def memory_limit_text(limit_bytes: int) -> str:
    """`` (N MB)`` for an error message naming a worker's memory limit; "" when unknown (0)."""
    return f" ({limit_bytes / 2**20:g} MB)" if limit_bytes else ""
