"""Tasks by name, so that a service enqueues its task without importing the module that holds it.

A task module names the service it runs (``esign.tasks`` imports ``esign.sealing``); if the
service imported the task module to enqueue it, the two would import each other, a circle that
only an import inside a function hides. So each task is registered under a name when its module
is imported (``AppConfig.ready`` imports every app's ``tasks`` module, and django-tasks' workers
import it again by the task's path), and services enqueue by that name through
``core.background``. The name is written once, as a constant in the app's ``task_names`` module
(which imports nothing), that the tasks module and the services both import: a renamed or removed
name then fails at import, and in mypy, rather than when the task is first enqueued::

    PACKET_SEAL = "esign.packet_seal"  # esign/task_names.py

    @task_register(PACKET_SEAL)  # esign/tasks.py
    @task(priority=PRIORITY_WAITED_FOR)
    def packet_seal_task(*, packet_id: int, attempt: int = 1) -> str: ...

    enqueue_in_transaction(PACKET_SEAL, packet_id=packet.pk)  # esign/sealing/seal.py

The name is ``"<app>.<what>"``; the task keeps its module path (``esign.tasks.packet_seal_task``),
which is what django-tasks stores in a task's row and what a worker imports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django_tasks.base import Task

T = TypeVar("T", bound=Task[..., Any])

_tasks: dict[str, Task[..., Any]] = {}


class TaskNotRegistered(LookupError):
    """No task has this name: its app's tasks module was not imported (see AppConfig.ready)."""


def task_register(name: str) -> Callable[[T], T]:
    """Register the decorated task (a django-tasks ``Task``) under ``name``. Registering a name
    again with another task is refused: two tasks must not answer to one name."""

    def register(task: T) -> T:
        known = _tasks.get(name)
        if known is not None and known.module_path != task.module_path:
            raise ValueError(f"{name!r} is already the task {known.module_path}")
        _tasks[name] = task
        return task

    return register


def task_named(name: str) -> Task[..., Any]:
    """The task registered as ``name``."""
    try:
        return _tasks[name]
    except KeyError:
        raise TaskNotRegistered(
            f"No task is registered as {name!r}: is its app's tasks module imported by its "
            "AppConfig.ready()?"
        ) from None


def task_path(name: str) -> str:
    """The module path of the task registered as ``name``, as stored in its task results."""
    return task_named(name).module_path
