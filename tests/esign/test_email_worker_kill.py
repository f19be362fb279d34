"""A signing email survives a worker killed while sending it: the worker's sweep sends it again
once the send's lease ran out. Counted at the end: the email went out once from the surviving
worker (the killed one never finished its conversation with the mail server), the outbox row is
sent after two attempts, and no task is left running. Real ``manage.py worker`` processes on a
database shared with this test (SQLite file or PostgreSQL)."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from esign.models import AuditEvent, SignerEmail
from tests.core.test_tasks import shared_database_url  # noqa: F401 - a fixture
from tests.core.test_worker import start_task_worker  # noqa: F401 - a fixture
from tests.esign.conftest import silent_listener, two_signer_packet
from tests.esign.test_seal_outbox import kill, wait_for, worker_ready

pytestmark = pytest.mark.slow

FAST = {"SIGNER_EMAIL_LEASE_SECONDS": "2", "TASKS_SWEEP_SECONDS": "0.5"}


@pytest.fixture
def hanging_mail_server() -> Iterator[tuple[int, list[socket.socket]]]:
    """An SMTP port that accepts connections and never says a word."""
    with silent_listener(8) as (port, held, _):
        yield port, held


def test_killing_the_worker_mid_email_sends_it_once_later(
    shared_database_url: str,  # noqa: F811
    start_task_worker: Callable,  # noqa: F811
    create_packet,
    hanging_mail_server,
    tmp_path: Path,
) -> None:
    port, connections = hanging_mail_server
    outbox = tmp_path / "mail"
    outbox.mkdir()
    stuck = worker_ready(
        start_task_worker,
        shared_database_url,
        tmp_path,
        worker_id="a",
        EMAIL_URL=f"smtp://127.0.0.1:{port}",
        **FAST,
    )
    variables = two_signer_packet()
    variables["signers"][0]["signerType"] = "email"
    create_packet(signers=variables["signers"])  # commits the email and its task; wakes "a"
    wait_for(lambda: bool(connections), "the worker to reach the mail server", 30, tmp_path)
    email = SignerEmail.objects.get()
    assert (email.status, email.attempts) == ("pending", 1)
    kill(stuck)  # mid-email: connected, nothing sent

    start_task_worker(shared_database_url, worker_id="b", EMAIL_URL=f"filemail:///{outbox}", **FAST)
    wait_for(
        lambda: SignerEmail.objects.get().status == "sent", "the email to be sent", 60, tmp_path
    )

    sent = list(outbox.iterdir())
    assert len(sent) == 1
    assert "ada@example.com" in sent[0].read_text()
    email.refresh_from_db()
    assert email.attempts == 2
    assert AuditEvent.objects.filter(action="signerEmailSent").count() == 1
    wait_for(
        lambda: not DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING).exists(),
        "the lost task to be marked failed",
        30,
        tmp_path,
    )
    statuses = sorted(
        DBTaskResult.objects.filter(task_path="esign.tasks.signer_email_task").values_list(
            "status", flat=True
        )
    )
    assert statuses == ["FAILED", "SUCCESSFUL"]
