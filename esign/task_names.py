"""The names esign's tasks are registered under (core.tasks_registry), each written once.

``esign.tasks`` registers each task under its name here, and the services enqueue and look up the
task by the same constant: a renamed or removed name fails at import (and in mypy) on both sides,
not when a worker first enqueues it. The names live in this module of their own because neither
side can hold them: ``esign.tasks`` imports the services (a service importing it would close a
circle), and the seal is enqueued from two modules, ``esign.sealing.seal`` and
``esign.sealing.qualified``, the first of which imports the second. The values are what the
registry knows each task by; never change one without its task.
"""

from __future__ import annotations

PACKET_SEAL = "esign.packet_seal"  # esign.tasks.packet_seal_task
SEALED_FILE_RENEW = "esign.sealed_file_renew"  # esign.tasks.sealed_file_renew_task
SIGNER_EMAIL = "esign.signer_email"  # esign.tasks.signer_email_task
BULK_BATCH_SEND = "esign.bulk_batch_send"  # esign.tasks.bulk_batch_send_task
