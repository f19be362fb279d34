"""E-signature tasks: sealing a completed packet (esign.sealing.seal), renewing a sealed file's
archive timestamp (esign.sealing.renewal), emailing a signer (esign.links.emails), a bulk send's
rows (esign.bulk.sends).

Each is registered by name (core.tasks_registry), its constant in esign.task_names: the services
enqueue ``PACKET_SEAL`` and never import this module, which imports them. ``EsignConfig.ready``
imports it.
"""

from __future__ import annotations

from django_tasks import task

from core.background import PRIORITY_BACKGROUND, PRIORITY_NEXT_STEP, PRIORITY_WAITED_FOR
from core.tasks_registry import task_register
from esign.bulk.sends import batch_send
from esign.links.emails import signer_email_send
from esign.sealing.renewal import sealed_file_renew
from esign.sealing.seal import packet_seal
from esign.task_names import BULK_BATCH_SEND, PACKET_SEAL, SEALED_FILE_RENEW, SIGNER_EMAIL


# Someone waits for a seal: it runs before any task at the default priority and before background
# work, whatever their order of arrival; after signers' emails and webhook deliveries (short, and
# the next step waits for them: core.background).
@task_register(PACKET_SEAL)
@task(priority=PRIORITY_WAITED_FOR)
def packet_seal_task(*, packet_id: int, attempt: int = 1) -> str:
    """Attempt ``attempt`` at sealing packet ``packet_id``; schedules its own retry on failure.

    Idempotent: a packet already sealed is left as it is.
    """
    return packet_seal(packet_id=packet_id, attempt=attempt)


@task_register(SEALED_FILE_RENEW)
@task(priority=PRIORITY_BACKGROUND)  # due within weeks: after everything else
def sealed_file_renew_task(*, version_id: int) -> str:
    """Renew the archive timestamp of a sealed file (esign.sealing.renewal); a failure is recorded
    on the file and tried again by the sweep. Idempotent: a file renewed already is left."""
    return sealed_file_renew(version_id=version_id)


@task_register(SIGNER_EMAIL)
@task(priority=PRIORITY_NEXT_STEP)  # the next signer waits for it: before any seal
def signer_email_task(*, email_id: int, attempt: int = 1) -> str:
    """Attempt ``attempt`` at sending a signer's email (esign.links.emails); retries itself."""
    return signer_email_send(email_id=email_id, attempt=attempt)


@task_register(BULK_BATCH_SEND)
@task(priority=PRIORITY_BACKGROUND)  # paced over minutes: after the seals of packets signed now
def bulk_batch_send_task(*, batch_id: int) -> str:
    """One chunk of a bulk send's rows (esign.bulk.sends); enqueues the next chunk itself, paced by
    the outgoing mail. Idempotent: rows done are skipped."""
    return batch_send(batch_id=batch_id)
