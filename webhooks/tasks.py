"""The delivery task: one attempt of one webhook delivery, on the ``webhooks`` queue."""

from __future__ import annotations

from django_tasks import task


@task(queue_name="webhooks")
def webhook_deliver(*, delivery_id: int, attempt: int = 1) -> str:
    """Attempt ``attempt`` of delivery ``delivery_id``; schedules its own retry when it fails.

    Idempotent (see ``webhooks.services.delivery_attempt``). After the attempt, this worker also
    retries what a dead worker left behind, at most once per half lease.
    """
    # Imported here: the services enqueue this task, so they import this module.
    from webhooks.services import deliveries_recover_if_due, delivery_attempt

    outcome = delivery_attempt(delivery_id=delivery_id, attempt=attempt)
    deliveries_recover_if_due()
    return outcome
