"""Problems with an input, named by dotted path (``data.3.fontSize``), shared by the engines."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Self


@dataclass(frozen=True)
class Problem:
    """One thing wrong: where (a dotted path into the input) and what."""

    path: str
    message: str


class InvalidInput(Exception):
    """The input has problems; each engine's own error (FillInvalid...) is one of these."""

    code = "invalid"

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(f"{p.path}: {p.message}" for p in self.problems))

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        # Errors travel back from generate's render workers by pickle.
        return (type(self), (self.problems,))

    @classmethod
    def single(cls, path: str, message: str) -> Self:
        return cls([Problem(path, message)])
