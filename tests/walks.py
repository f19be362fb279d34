"""A reader's walk through one call: which of the project's files they open, in what order.

Issue 37 measured how hard a call is to follow by reading it: start at a function, follow every
call into the project's own code (not Django's, not a library's), read each function once (one
already read is not followed again), and note the file being read at each step. ``Walk`` records
the same thing while the call runs, with ``sys.setprofile``:

- a *stay* is a run of steps in one file; ``files`` is how many files the walk enters;
- a *return* is a stay in a file the walk had already left (the reader goes back to it);
- a *climb* is a call from an app into an app above it in the layers of pyproject.toml's
  import-linter contract (core calling esign through a hook, say): the reader goes up a floor.

The walk follows every file the project owns: the apps, the shared ground (core, accounts) and
the pure engines (``*/engine/``) alike (issue 53 counted so: a reader of a signer's finish opens
core's and the engines' files too). Module bodies run by a late import are not part of the walk,
nor are the tests' or the migrations'. What is counted is the code as it runs, so a branch the
call does not take is not counted.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _layers() -> dict[str, int]:
    """Top-level package -> floor (0 is the highest), read from the layers contract."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers":
            return {
                name.strip(): floor
                for floor, layer in enumerate(contract["layers"])
                for name in layer.split("|")
            }
    raise LookupError("no layers contract in pyproject.toml")


FLOORS = _layers()


def _project_file(code: CodeType) -> str | None:
    """The file of ``code`` relative to the repository, if it is the project's own code."""
    path = Path(code.co_filename)
    if not path.is_absolute() or code.co_name == "<module>":
        return None
    try:
        relative = path.relative_to(ROOT)
    except ValueError:
        return None
    if relative.parts[0] not in FLOORS or "migrations" in relative.parts:
        return None
    return relative.as_posix()


@dataclass
class Walk:
    """Records the walk of the first call to a function named ``entry`` (a module's function or
    a method) made inside ``with Walk(entry) as walk:``."""

    entry: str
    steps: list[str] = field(default_factory=list)
    doors: list[str] = field(default_factory=list)  # the function each stay starts in
    climbs: int = 0
    _read: set[CodeType] = field(default_factory=set)
    _stack: list[tuple[FrameType, str]] = field(default_factory=list)
    _skipping: FrameType | None = None
    _done: bool = False

    def __enter__(self) -> Walk:
        self._previous = sys.getprofile()
        sys.setprofile(self._event)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(self._previous)

    @property
    def files(self) -> int:
        return len(set(self.steps))

    @property
    def stays(self) -> int:
        return len(self.steps)

    @property
    def returns(self) -> int:
        return sum(1 for i, file in enumerate(self.steps) if file in self.steps[:i])

    def summary(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "stays": self.stays,
            "files": self.files,
            "returns": self.returns,
            "climbs": self.climbs,
            "path": self.steps,
            "doors": self.doors,
        }

    def _step(self, file: str, frame: FrameType) -> None:
        if not self.steps or self.steps[-1] != file:
            self.steps.append(file)
            self.doors.append(frame.f_code.co_qualname)

    def _event(self, frame: FrameType, event: str, arg: Any) -> None:
        if self._done or event not in ("call", "return"):
            return
        if self._skipping is not None:
            if event == "return" and frame is self._skipping:
                self._skipping = None
            return
        code = frame.f_code
        if event == "call":
            file = _project_file(code)
            if file is None:
                return
            if not self._stack:
                if code.co_name != self.entry:
                    return
            elif code in self._read:
                self._skipping = frame  # read already: the reader does not follow it again
                return
            self._read.add(code)
            if self._stack:
                caller = self._stack[-1][1].split("/")[0]
                if FLOORS[file.split("/")[0]] < FLOORS[caller]:
                    self.climbs += 1
            self._stack.append((frame, file))
            self._step(file, frame)
        elif self._stack and frame is self._stack[-1][0]:
            self._stack.pop()
            if self._stack:
                self._step(*reversed(self._stack[-1]))
            else:
                self._done = True


# Issue 53's goal for the signer's finish and a webform page that starts a signing step, each
# followed into every file the project owns (issue 37's goal was half its figures, apps only).
GOAL = 11


def check_walk(walk: Walk, *, at_most: int | None = None) -> None:
    """The walk went somewhere, and makes at most ``GOAL`` returns (issue 53), or ``at_most``
    where that goal is not reached yet: the figure reached, so that a walk may only get shorter
    (a ratchet: lower it when a walk gets shorter). ``WALKS_PRINT=1`` writes the walk to standard
    output (bench/walks.py reads it there)."""
    if os.environ.get("WALKS_PRINT"):
        sys.stdout.write(f"WALK {json.dumps(walk.summary())}\n")
    assert walk.stays > 1
    assert walk.returns <= (GOAL if at_most is None else at_most), walk.summary()
