"""The sealing task: seal a completed packet's documents and audit trail (esign.sealing)."""

from __future__ import annotations

from django_tasks import task


@task()
def packet_seal_task(*, packet_id: int, attempt: int = 1) -> str:
    """Attempt ``attempt`` at sealing packet ``packet_id``; schedules its own retry on failure.

    Idempotent: a packet already sealed is left as it is.
    """
    # Imported here: esign.sealing enqueues this task, so it imports this module.
    from esign.sealing import packet_seal

    return packet_seal(packet_id=packet_id, attempt=attempt)
