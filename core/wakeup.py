"""Waking idle task workers when a task is enqueued, instead of waiting for their next poll.

The enqueuing side is :func:`workers_wake`, called by ``core.background`` right after a task's row
is written; the worker side is a :class:`Waiter` (:func:`waiter_for`), whose ``wait`` returns as
soon as a wake-up arrives or the timeout passes, whichever is first.

- PostgreSQL: ``NOTIFY docautomation_tasks`` in the enqueuing transaction. PostgreSQL delivers it
  when (and only if) that transaction commits, folds repeats within one transaction into one,
  and reaches every worker that ``LISTEN``s, on any machine.
- SQLite: there is no LISTEN, and every process using the database runs on the same machine.
  Each worker binds a Unix datagram socket in a directory beside the database file
  (``<database>-wake/``, or one in the temporary directory when that path is too long for a
  socket); after the commit, the enqueuing process sends one byte to every socket
  there (a directory listing and a ``sendto`` each: microseconds, never blocking). A socket
  left by a worker that died refuses the datagram and is removed.

A wake-up is only a hint: a lost one (a worker on another machine with SQLite, a full socket
buffer, a dropped LISTEN connection) costs at most the worker's poll interval, which stays as
the fallback.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import select
import socket
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from django.db import connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

logger = logging.getLogger(__name__)

CHANNEL = "docautomation_tasks"
# The longest path a Unix socket may have on Linux (108 bytes with the terminating NUL).
UNIX_PATH_MAX = 107


def workers_wake(*, using: str) -> None:
    """Wake idle workers once the current transaction on database ``using`` commits (at once
    outside a transaction); nothing when it rolls back."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"NOTIFY {CHANNEL}")
    elif connection.vendor == "sqlite":
        directory = wake_directory(connection)
        if directory is not None:
            transaction.on_commit(partial(_send_wakeups, directory), using=using)


# A listener's socket name in the directory: "/<pid>-<8 hex digits>.sock" (a pid has 7 digits
# at most on Linux).
_SOCKET_NAME_MAX = len("/1234567-0123abcd.sock")


def wake_directory(connection: BaseDatabaseWrapper) -> Path | None:
    """Where the workers of this SQLite database listen; None for an in-memory database."""
    name = str(connection.settings_dict["NAME"])
    if name == ":memory:" or name.startswith("file:") or "mode=memory" in name:
        return None
    return wake_directory_of(Path(name))


def wake_directory_of(database: Path) -> Path:
    """``<database>-wake`` beside the database file, unless a socket there would have a longer
    path than Linux allows (a database deep in the tree): then a directory of the user's own in
    the temporary directory, named by the database's absolute path. Workers and enqueuers of one
    database compute the same place, since it depends on the path alone."""
    beside = Path(f"{database}-wake")
    if len(str(beside).encode()) + _SOCKET_NAME_MAX <= UNIX_PATH_MAX:
        return beside
    digest = hashlib.sha256(str(database.absolute()).encode()).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / f"docautomation-wake-{os.getuid()}-{digest}"


def _send_wakeups(directory: Path) -> None:
    try:
        paths = [path for path in directory.iterdir() if path.name.endswith(".sock")]
    except OSError:
        return  # no worker has listened yet
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.setblocking(False)
        for path in paths:
            try:
                sock.sendto(b"!", str(path))
            except BlockingIOError:
                pass  # its queue is full of wake-ups: that worker is awake already
            except (ConnectionRefusedError, FileNotFoundError):
                path.unlink(missing_ok=True)  # left by a worker that died
            except OSError as error:
                logger.debug("wake-up to %s not sent: %s", path, error)


class Waiter(Protocol):
    def wait(self, timeout: float) -> bool:
        """Wait until woken (True) or ``timeout`` seconds passed (False)."""
        ...

    def close(self) -> None: ...


class Sleeper:
    """No wake-ups: the worker polls every interval."""

    def wait(self, timeout: float) -> bool:
        time.sleep(max(0.0, timeout))
        return False

    def close(self) -> None:
        pass


class PostgresListener:
    """``LISTEN`` on a connection of its own (autocommit, outside Django's connection handling),
    opened again after it breaks; while it is broken the worker polls."""

    def __init__(self, using: str) -> None:
        self.using = using
        self.wrapper: BaseDatabaseWrapper | None = None

    def _listening(self) -> Any:
        if self.wrapper is None:
            wrapper = connections.create_connection(self.using)
            wrapper.ensure_connection()
            wrapper.connection.autocommit = True
            wrapper.connection.execute(f"LISTEN {CHANNEL}")
            self.wrapper = wrapper
        return self.wrapper.connection

    def wait(self, timeout: float) -> bool:
        started = time.monotonic()
        try:
            connection = self._listening()
            woken = any(True for _ in connection.notifies(timeout=max(0.0, timeout), stop_after=1))
            if woken:
                for _ in connection.notifies(timeout=0):
                    pass  # wake-ups that arrived together: one poll answers them all
        except Exception:  # noqa: BLE001 - a broken LISTEN connection must not stop the worker
            logger.warning("LISTEN %s failed; polling until it works again", CHANNEL, exc_info=True)
            self.close()
            time.sleep(max(0.0, timeout - (time.monotonic() - started)))
            return False
        return woken

    def close(self) -> None:
        if self.wrapper is not None:
            with contextlib.suppress(Exception):
                self.wrapper.close()
            self.wrapper = None


class SocketListener:
    """A Unix datagram socket in the database's wake directory (see the module's docstring)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(mode=0o700, exist_ok=True)
        # In a shared temporary directory, someone else may have made it first: only ours will do.
        owner = directory.stat().st_uid
        if owner != os.getuid():
            raise OSError(f"{directory} belongs to another user (uid {owner})")
        self.path = directory / f"{os.getpid()}-{secrets.token_hex(4)}.sock"
        if len(str(self.path).encode()) > UNIX_PATH_MAX:
            raise ValueError(f"the socket path is too long for a Unix socket: {self.path}")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.path))
        self.sock.setblocking(False)

    def wait(self, timeout: float) -> bool:
        readable, _, _ = select.select([self.sock], [], [], max(0.0, timeout))
        if not readable:
            return False
        with contextlib.suppress(BlockingIOError):
            while self.sock.recv(64):
                pass  # wake-ups that arrived together: one poll answers them all
        return True

    def close(self) -> None:
        self.sock.close()
        self.path.unlink(missing_ok=True)


def waiter_for(using: str) -> Waiter:
    """How a worker on database ``using`` waits for work: woken on PostgreSQL and SQLite."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        return PostgresListener(using)
    directory = wake_directory(connection) if connection.vendor == "sqlite" else None
    if directory is not None:
        try:
            return SocketListener(directory)
        except (OSError, ValueError) as error:
            logger.warning("No wake-ups (%s): the worker polls every interval", error)
    return Sleeper()
