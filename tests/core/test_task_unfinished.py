"""core.sweeps.task_unfinished and tasks_unfinished_for: the one query of a live task that the
sweeps ask (a task waiting, or running since a bound: one running longer lost its worker)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from core.background import enqueue_in_transaction
from core.sweeps import task_unfinished, tasks_unfinished_for
from core.tasks_registry import task_path

TASK = "esign.bulk_batch_send"


@pytest.mark.django_db
def test_a_task_is_unfinished_while_it_waits_or_runs_since_the_bound() -> None:
    with transaction.atomic():
        enqueue_in_transaction(TASK, batch_id=7)
    path = task_path(TASK)
    assert task_unfinished(task_path=path, batch_id=7)
    assert not task_unfinished(task_path=path, batch_id=8)
    assert tasks_unfinished_for(task_path=path, kwarg="batch_id") == {7}

    now = timezone.now()
    DBTaskResult.objects.update(
        status=TaskResultStatus.RUNNING, started_at=now - timedelta(hours=1)
    )

    assert not task_unfinished(task_path=path, batch_id=7)  # running: only when asked
    assert task_unfinished(task_path=path, running=True, batch_id=7)
    lease_ago, before = now - timedelta(minutes=10), now - timedelta(hours=2)
    assert not task_unfinished(task_path=path, running=True, started_since=lease_ago, batch_id=7)
    assert task_unfinished(task_path=path, running=True, started_since=before, batch_id=7)
    assert tasks_unfinished_for(task_path=path, kwarg="batch_id", running=True) == {7}
    assert (
        tasks_unfinished_for(
            task_path=path, kwarg="batch_id", running=True, started_since=lease_ago
        )
        == set()
    )
