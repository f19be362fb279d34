"""What the parts of one long document tell each other through the pool while they render
(`generate.engine.parts`): the plan, counters and running elements, column widths, page counts."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from generate.engine.part_job import (
    ASK_BREAKS,
    ASK_COLUMNS,
    ASK_PART,
    ASK_PLACEMENT,
    ASK_PLAN,
    ASK_START,
    IN_PASSES,
    TELL_END,
    BreakLayout,
    Columns,
    PartJob,
    PartLayout,
    PartStart,
    Placement,
    TableLayout,
    widest,
)


class Aborted(Exception):  # noqa: N818 - another part failed: this one stops (its worker too)
    pass


class Exchange:
    """What the parts tell each other through the pool, answered as they ask (see
    `generate.engine.part_job`'s questions). A question that cannot be answered yet waits."""

    def __init__(
        self,
        count: int,
        timeout: float,
        plan: Callable[[TableLayout | None], list[PartJob] | None] | None = None,
        breaks: Callable[[BreakLayout | None], list[PartJob] | None] | None = None,
    ) -> None:
        self.count = count
        self.timeout = timeout
        self.ends: dict[int, PartStart] = {}
        self.layouts: dict[int, PartLayout] = {}
        self.columns: dict[int, Columns] = {}
        self.failed = False
        self._condition = threading.Condition()
        # `PartOpening`s: the parts planned from the first one's probe (ASK_PLAN), once known.
        self._plan = plan
        self._breaks = breaks
        self.planned = False
        self.parts: list[PartJob] | None = None

    def abort(self) -> None:
        with self._condition:
            self.failed = True
            self._condition.notify_all()

    def _wait(self, ready: Callable[[], bool]) -> None:
        if not self._condition.wait_for(lambda: self.failed or ready(), self.timeout):
            raise Aborted
        if self.failed:
            raise Aborted

    def answer(self, question: Any) -> Any:
        kind = question[0]
        with self._condition:
            if kind == ASK_START:
                index = question[1]
                self._wait(lambda: index - 1 in self.ends)
                return self.ends[index - 1]
            if kind == TELL_END:
                self.ends[question[1]] = question[2]
                self._condition.notify_all()
                return None
            if kind == ASK_COLUMNS:
                self.columns[question[1]] = question[2]
                self._condition.notify_all()
                self._wait(lambda: len(self.columns) == self.count)
                return widest(list(self.columns.values()))
            if kind == ASK_PLAN:
                assert self._plan is not None
                self.parts = self._plan(question[1])
                self.planned = True
                if self.parts is not None:
                    self.count = len(self.parts)
                self._condition.notify_all()
                return self.parts[0] if self.parts is not None else None
            if kind == ASK_BREAKS:
                found = self._breaks(question[1]) if self._breaks is not None else None
                if found is None:
                    return None  # the first part probes the table next (ASK_PLAN)
                self.planned = True
                self._condition.notify_all()
                if len(found) > self.count:
                    return IN_PASSES  # more parts than workers: the others are skipped
                self.parts, self.count = found, len(found)
                return found[0]
            if kind == ASK_PART:
                index = question[1]
                self._wait(lambda: self.planned)
                return self.parts[index] if self.parts and index < len(self.parts) else None
            if kind == ASK_PLACEMENT:
                layout: PartLayout = question[1]
                self.layouts[layout.index] = layout
                self._condition.notify_all()
                self._wait(lambda: len(self.layouts) == self.count)
                return self.placement(layout.index)
        raise ValueError(f"unknown question {kind!r}")

    def placement(self, index: int) -> Placement:
        strings: dict[str, str] = {}
        for earlier in range(index):  # later parts' values win
            strings.update(self.layouts[earlier].strings)
        return Placement(
            total_pages=sum(layout.pages for layout in self.layouts.values()),
            strings=strings,
            pages_before=sum(self.layouts[earlier].pages for earlier in range(index)),
        )
