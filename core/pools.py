"""A process's pool of worker processes (core.engine.process_pool, which knows nothing of
Django) with its settings read from Django's settings, by one naming scheme for every app:
``<PREFIX>_WORKERS``, ``<PREFIX>_WORKER_MAX_JOBS``, ``<PREFIX>_WORKER_MEMORY_MB``,
``<PREFIX>_WORKER_RECYCLE_MB``, ``<PREFIX>_WORKER_NICE``, ``<PREFIX>_MAX_JOBS_PER_ORGANIZATION``
and ``<PREFIX>_MAX_WAITING`` (``GENERATE_WORKERS``, ``VERIFY_WORKER_MEMORY_MB``); a job run by
`SettingsPool.run` has ``<PREFIX>_TIMEOUT_SECONDS`` and waits ``<PREFIX>_QUEUE_TIMEOUT_SECONDS``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from django.conf import settings

from core.engine.process_pool import (
    JobT,
    PoolPerProcess,
    PoolSettings,
    PoolStats,
    ProcessPool,
    ResultT,
)

MIB = 1_048_576
# Covariant, so that a SettingsPool of a VerifyPool is one of a ProcessPool[VerifyJob, ...]
# (what `SettingsPool.run` asks for): it only hands its pool out.
PoolT_co = TypeVar("PoolT_co", bound=ProcessPool, covariant=True)

# Each PoolSettings field, the setting that holds it (after the prefix) and its unit in bytes.
_SETTINGS = (
    ("workers", "WORKERS", 1),
    ("max_jobs", "WORKER_MAX_JOBS", 1),
    ("memory_limit_bytes", "WORKER_MEMORY_MB", MIB),
    ("recycle_rss_bytes", "WORKER_RECYCLE_MB", MIB),
    ("nice", "WORKER_NICE", 1),
    ("max_per_tenant", "MAX_JOBS_PER_ORGANIZATION", 1),
    ("max_waiting", "MAX_WAITING", 1),
)


def pool_settings(prefix: str, **defaults: int) -> PoolSettings:
    """The settings of the ``prefix`` pool as they are now. A setting that is not defined (or is
    None) takes its field's value from ``defaults`` (``max_jobs=100``), else PoolSettings' own."""
    values = dict(defaults)
    for field, name, unit in _SETTINGS:
        value = getattr(settings, f"{prefix}_{name}", None)
        if value is not None:
            values[field] = value * unit
    return PoolSettings(**values)


# Every SettingsPool by its prefix, so that /metrics (config.metrics) reads a pool's figures
# without importing the app that owns it (esign's upload checks, generate's renders).
_by_prefix: dict[str, SettingsPool[Any]] = {}


class SettingsPool(Generic[PoolT_co]):
    """This process's pool made by ``make`` with the settings of ``prefix`` (``pool_settings``):
    made on first use, and again after a fork or a change of the settings, the old one being
    closed (PoolPerProcess)."""

    def __init__(self, make: Callable[[PoolSettings], PoolT_co], prefix: str, **defaults: int):
        self._pools: PoolPerProcess[PoolT_co] = PoolPerProcess(make)
        self._prefix = prefix
        self._defaults = defaults
        _by_prefix[prefix] = self

    def get(self) -> PoolT_co:
        return self._pools.get(pool_settings(self._prefix, **self._defaults))

    def current(self) -> PoolT_co | None:
        """This process's pool, if it made one."""
        return self._pools.current()

    def run(
        self: SettingsPool[ProcessPool[JobT, ResultT]], job: JobT, *, tenant: str | None = None
    ) -> ResultT:
        """``job``'s result from this process's pool, within ``<PREFIX>_TIMEOUT_SECONDS`` once a
        worker is free, after waiting at most ``<PREFIX>_QUEUE_TIMEOUT_SECONDS`` for one (the
        settings as they are now)."""
        return self.get().run(
            job,
            timeout=getattr(settings, f"{self._prefix}_TIMEOUT_SECONDS"),
            queue_timeout=getattr(settings, f"{self._prefix}_QUEUE_TIMEOUT_SECONDS"),
            tenant=tenant,
        )


def pool_stats(prefix: str) -> PoolStats | None:
    """What this process's ``prefix`` pool is doing; None before its first use here (or when
    no module has declared a pool of that prefix)."""
    declared = _by_prefix.get(prefix)
    pool = declared.current() if declared is not None else None
    return pool.stats() if pool is not None else None
