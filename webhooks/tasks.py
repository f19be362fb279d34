"""The delivery task: one attempt of one webhook delivery, on the ``webhooks`` queue."""

from __future__ import annotations

from django_tasks import task


@task(queue_name="webhooks")
def webhook_deliver(*, delivery_id: int, attempt: int = 1) -> str:
    """Attempt ``attempt`` of delivery ``delivery_id``; schedules its own retry when it fails.

    Idempotent (see ``webhooks.services.delivery.delivery_attempt``). What a dead worker left
    behind is retried by the worker's sweep (``webhooks.sweeps``), not here.
    """
    # Imported here: the services enqueue this task, so they import this module.
    from webhooks.services import delivery_attempt

    return delivery_attempt(delivery_id=delivery_id, attempt=attempt)
