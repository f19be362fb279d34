"""core.tasks_registry: services enqueue tasks by name, without importing their modules."""

from __future__ import annotations

import pytest
from django_tasks import task

from core.tasks_registry import TaskNotRegistered, task_named, task_path, task_register
from esign.tasks import packet_seal_task
from webhooks.tasks import webhook_deliver


def test_every_app_registers_its_tasks_when_it_is_ready() -> None:
    assert task_named("webhooks.deliver") is webhook_deliver
    assert task_named("esign.packet_seal") is packet_seal_task
    assert task_path("generate.job") == "generate.tasks.generate_job_task"


def test_an_unknown_name_is_refused_with_its_reason() -> None:
    with pytest.raises(TaskNotRegistered, match="'esign.nothing'.*AppConfig.ready"):
        task_named("esign.nothing")


@task()
def another_task() -> None:
    """Not the delivery task (django-tasks wants tasks at a module's top level)."""


def test_a_name_is_not_given_to_a_second_task() -> None:
    with pytest.raises(ValueError, match="'webhooks.deliver' is already the task webhooks.tasks"):
        task_register("webhooks.deliver")(another_task)
    assert task_named("webhooks.deliver") is webhook_deliver
