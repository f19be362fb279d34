"""E-signature tasks: sealing a completed packet (esign.sealing), renewing a sealed file's
archive timestamp (esign.seal_renewal), emailing a signer (esign.emails), a bulk send's rows
(esign.bulk)."""

from __future__ import annotations

from django_tasks import task

from core.background import PRIORITY_BACKGROUND, PRIORITY_WAITED_FOR


# Someone waits for a seal and a signer's email: they run before the webhook deliveries (and any
# other task at the default priority) that are due, whatever their order of arrival.
@task(priority=PRIORITY_WAITED_FOR)
def packet_seal_task(*, packet_id: int, attempt: int = 1) -> str:
    """Attempt ``attempt`` at sealing packet ``packet_id``; schedules its own retry on failure.

    Idempotent: a packet already sealed is left as it is.
    """
    # Imported here: esign.sealing enqueues this task, so it imports this module.
    from esign.sealing.seal import packet_seal

    return packet_seal(packet_id=packet_id, attempt=attempt)


@task(priority=PRIORITY_BACKGROUND)  # due within weeks: after everything else
def sealed_file_renew_task(*, version_id: int) -> str:
    """Renew the archive timestamp of a sealed file (esign.seal_renewal); a failure is recorded
    on the file and tried again by the sweep. Idempotent: a file renewed already is left."""
    from esign.sealing.renewal import sealed_file_renew  # imported late like packet_seal

    return sealed_file_renew(version_id=version_id)


@task(priority=PRIORITY_WAITED_FOR)
def signer_email_task(*, email_id: int, attempt: int = 1) -> str:
    """Attempt ``attempt`` at sending a signer's email (esign.emails); retries itself."""
    from esign.links.emails import signer_email_send  # esign.links.emails enqueues this task

    return signer_email_send(email_id=email_id, attempt=attempt)


@task()
def bulk_batch_send_task(*, batch_id: int) -> str:
    """One chunk of a bulk send's rows (esign.bulk); enqueues the next chunk itself, paced by
    the outgoing mail. Idempotent: rows done are skipped."""
    from esign.bulk.sends import batch_send  # esign.bulk.sends enqueues this task

    return batch_send(batch_id=batch_id)
