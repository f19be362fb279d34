"""The delivery task: one attempt of one webhook delivery, on the ``webhooks`` queue.

Registered as ``WEBHOOK_DELIVER`` (webhooks.task_names, core.tasks_registry): the services
enqueue it by that name and never import this module, which imports them. ``WebhooksConfig.ready``
imports it.
"""

from __future__ import annotations

from django_tasks import task

from core.background import PRIORITY_NEXT_STEP
from core.tasks_registry import task_register
from webhooks.services import delivery_attempt
from webhooks.task_names import WEBHOOK_DELIVER


@task_register(WEBHOOK_DELIVER)
@task(queue_name="webhooks", priority=PRIORITY_NEXT_STEP)  # before seals (core.background)
def webhook_deliver(*, delivery_id: int, attempt: int = 1) -> str:
    """Attempt ``attempt`` of delivery ``delivery_id``; schedules its own retry when it fails.

    Idempotent (see ``webhooks.services.delivery.delivery_attempt``). What a dead worker left
    behind is retried by the worker's sweep (``webhooks.sweeps``), not here.
    """
    return delivery_attempt(delivery_id=delivery_id, attempt=attempt)
