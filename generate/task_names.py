"""The name generate's task is registered under (core.tasks_registry), written once.

``generate.tasks`` registers the task under it and ``generate.jobs`` enqueues and looks the task
up by it: a renamed or removed name fails at import (and in mypy) on both sides. It is not kept in
``generate.tasks``, which imports ``generate.jobs`` (jobs importing it would close a circle). The
value is what the registry knows the task by; never change it without its task.
"""

from __future__ import annotations

GENERATE_JOB = "generate.job"  # generate.tasks.generate_job_task
