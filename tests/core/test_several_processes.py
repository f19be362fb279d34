"""The service on several machines: two web processes (gunicorn) with their own DATA_DIRs, two
workers, one PostgreSQL database, one S3 bucket (moto's server) and one Redis server. Fills,
generates, packets signed end to end, webform submissions and webhooks go through both web
processes; one web process and one worker are killed with SIGKILL half-way. Counted at the end:
nothing lost (every packet sealed and downloadable from the other process, every submission
complete, every event delivered), nothing stuck (no task left running or due), no error but
the killed process's own connections, and nothing stored under any DATA_DIR."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.db import connection
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from accounts.models import Organization
from accounts.services import api_key_create
from esign.models import Packet
from templates_app.models import PdfTemplate
from tests.browser import ARTIFACTS
from tests.cluster import Cluster, call, graphql, shared_environment
from tests.core.test_tasks import shared_database_url  # noqa: F401 - a fixture
from tests.esign.conftest import CREATE, SIGN_URL, two_signer_packet
from tests.esign.test_seal_outbox import wait_for
from tests.workflows.conftest import ABOUT_YOU_1, ABOUT_YOU_2, FORGE_SUBMIT, ORDER
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent
from workflows.demo import demo_workflow_create

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="several machines share PostgreSQL, not a SQLite file (CI runs it)",
    ),
]

ROUNDS = 6  # each round: fills and generates through both, a packet, a webform submission
FILL = {"data": {"title": "Several processes"}}
GENERATE = {"type": "markdown", "data": [{"heading": "Several processes", "content": "One."}]}


class _Receiver(BaseHTTPRequestHandler):
    ids: list[str] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        type(self).ids.append(self.headers.get("webhook-id", "").removeprefix("msg_"))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def receiver() -> Any:
    _Receiver.ids = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", _Receiver.ids
    server.shutdown()
    server.server_close()


def sign_packet(web: str, other: str, key: str) -> str:
    """Create a two-signer packet through ``web``; each signer signs through the other one."""
    packet = graphql(web, key, CREATE, two_signer_packet())["createEtchPacket"]
    bodies = [
        {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "CTO"}},
        {"signature": {"typed": "Charles Babbage"}},
    ]
    for signer, body in zip(packet["documentGroup"]["signers"], bodies, strict=True):
        url = graphql(other, key, SIGN_URL, {"signerEid": signer["eid"], "clientUserId": "u"})
        token = parse_qs(urlsplit(url["generateEtchSignURL"]).query)["token"][0]
        status, answer = call(
            web,
            "POST",
            f"/api/etch/sign/{signer['eid']}/complete",
            body=body,
            headers={"X-Signing-Token": token},
        )
        assert status == 200, answer
    return packet["eid"]


def submit_webform(web: str, key: str, forges: dict[str, str]) -> str:
    payload = {**ABOUT_YOU_1, **ABOUT_YOU_2}
    first = graphql(
        web,
        key,
        FORGE_SUBMIT,
        {"forgeEid": forges["about-you"], "payload": payload, "complete": True},
    )["forgeSubmit"]
    weld_data = first["weldData"]["eid"]
    graphql(
        web,
        key,
        FORGE_SUBMIT,
        {"forgeEid": forges["order"], "weldDataEid": weld_data, "payload": ORDER, "complete": True},
    )
    return weld_data


def test_two_web_processes_and_two_workers_lose_nothing_when_one_of_each_is_killed(
    shared_database_url: str,  # noqa: F811
    s3_storage: Any,
    organization: Organization,
    demo_template: PdfTemplate,
    receiver: Any,
    tmp_path: Path,
) -> None:
    hook_url, delivered = receiver
    WebhookEndpoint.objects.update_or_create(
        organization=organization, defaults={"url": hook_url, "token": "t" * 32}
    )
    workflow = demo_workflow_create(organization=organization, template=demo_template)
    forges = {w.slug: w.eid for w in workflow.webforms.all()}
    _, key = api_key_create(organization=organization, kind="production", name="cluster")
    seal_dir = tmp_path / "seal-dev"  # one development seal key for every process (an HSM's job)
    cluster = Cluster(
        tmp_path / "cluster",
        shared_environment(
            shared_database_url,
            s3_storage.server.environment(s3_storage.bucket),
            SECRET_KEY="k" * 50,
            FIELD_ENCRYPTION_KEYS=settings.FIELD_ENCRYPTION_KEYS[0],
            SEAL_DEV_DIR=str(seal_dir),
            FETCH_ALLOW_HOSTS="127.0.0.1",
            TASKS_SWEEP_SECONDS="0.5",
            WEBHOOK_LEASE_SECONDS="3",
            SEAL_LEASE_SECONDS="10",
            SIGNER_EMAIL_LEASE_SECONDS="3",
        ),
    )
    try:
        cluster.start_redis()
        a, b = cluster.start_web("web-a"), cluster.start_web("web-b")
        cluster.start_worker("worker-1")
        cluster.start_worker("worker-2")
        fill_path = f"/api/v1/fill/{demo_template.eid}.pdf"
        counts = {"fills": 0, "generates": 0, "killed_connections": 0}
        packets, submissions = [], []
        webs = [a, b]
        for round_number in range(ROUNDS):
            if round_number == ROUNDS // 2:
                # Half-way: a fill in flight on web-a when it dies, and a worker with it.
                flying = threading.Thread(
                    target=_fill_into_the_kill, args=(a, key, fill_path, counts)
                )
                flying.start()
                cluster.kill("web-a")
                cluster.kill("worker-1")
                flying.join(60)
                webs = [b]
            for web in webs:
                status, pdf = call(web, "POST", fill_path, key=key, body=FILL)
                assert status == 200, pdf[:300]
                assert pdf.startswith(b"%PDF")
                counts["fills"] += 1
                status, pdf = call(
                    web,
                    "POST",
                    "/api/v1/generate-pdf",
                    key=key,
                    body=GENERATE,
                )
                assert status == 200, pdf[:300]
                counts["generates"] += 1
            packets.append(sign_packet(webs[0], webs[-1], key))
            submissions.append(submit_webform(webs[-1], key, forges))

        # Nothing lost: every packet sealed (by whichever worker lived) and downloadable from b.
        wait_for(
            lambda: (
                Packet.objects.filter(eid__in=packets, seal_status="sealed").count() == len(packets)
            ),
            "every packet to be sealed",
            120,
            cluster.directory,
        )
        for eid in packets:
            group = Packet.objects.get(eid=eid).document_group.eid
            status, archive = call(b, "GET", f"/api/document-group/{group}.zip", key=key)
            assert status == 200
            assert archive[:2] == b"PK"
        for eid in submissions:
            data = graphql(
                b, key, "query($e: String!) { weldData(eid: $e) { status } }", {"e": eid}
            )
            assert data["weldData"]["status"] == "completed"
        # Every event delivered to the receiver; a duplicate only for an attempt the killed
        # worker had under way (a batch of them at most: it finishes a batch after its last POST).
        wait_for(
            lambda: not WebhookDelivery.objects.exclude(status="delivered").exists(),
            "every delivery",
            120,
            cluster.directory,
        )
        events = set(WebhookEvent.objects.values_list("eid", flat=True))
        assert events <= set(delivered)
        twice = {eid for eid in set(delivered) if delivered.count(eid) > 1}
        left_by_the_killed_worker = set(
            WebhookAttempt.objects.filter(outcome=WebhookAttempt.Outcome.ABANDONED).values_list(
                "delivery__event__eid", flat=True
            )
        )
        assert twice <= left_by_the_killed_worker
        assert len(left_by_the_killed_worker) <= settings.WEBHOOK_DELIVERY_BATCH
        # Nothing stuck: no task running or due once the sweeps have run.
        wait_for(
            lambda: (
                not DBTaskResult.objects.filter(
                    status__in=[TaskResultStatus.RUNNING, TaskResultStatus.READY]
                ).exists()
            ),
            "no task left running or due",
            60,
            cluster.directory,
        )
        # Nothing stored on any machine's disk: the documents are in the bucket.
        for name in ("web-a", "web-b", "worker-1", "worker-2"):
            stored = [p for p in (cluster.directory / name).rglob("*") if "media" in p.parts]
            assert [p for p in stored if p.is_file()] == [], name
        assert any(key.startswith("packets/") for key in s3_storage.names())
        # Every fill answered but the one in flight into the killed process (answered or cut).
        assert counts["fills"] + counts["killed_connections"] == (ROUNDS // 2) * 3 + 1
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "several-processes.json").write_text(
            json.dumps(
                {
                    **counts,
                    "packets_sealed": len(packets),
                    "submissions_completed": len(submissions),
                    "events": len(events),
                    "deliveries_received": len(delivered),
                    "duplicates": len(delivered) - len(set(delivered)),
                },
                indent=2,
            )
        )
    except BaseException:
        sys.stderr.write(cluster.logs())  # shown with the failure
        raise
    finally:
        cluster.stop()


def _fill_into_the_kill(web: str, key: str, path: str, counts: dict[str, int]) -> None:
    try:
        call(web, "POST", path, key=key, body=FILL, timeout=30)
        counts["fills"] += 1
    except OSError:
        counts["killed_connections"] += 1
