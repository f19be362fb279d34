"""A burst of two-signer packets signed through HTTP while task workers seal them and deliver
their webhooks: how long from the last signature to the sealed packet, and whether it grows with
the backlog.

    python bench/burst.py --database-url postgres://postgres@127.0.0.1:5432/<empty database>
                          [--packets 300] [--rate 5] [--workers 'default;*'] [--clients 16]

The production server (gunicorn.conf.py: 2 processes, threaded) and one ``manage.py worker`` per
``;``-separated entry of ``--workers`` (each entry is that worker's ``--queue-name``; the default
is what scripts/run.sh starts) serve a database of their own; the seal's key is in a SoftHSM2
token made for the run (PAdES-B-B, no TSA), as bench/seal.py does. The organization's webhook URL
is a receiver on 127.0.0.1 answering 200 at once. Packets start at ``--rate`` per second (at most
``--clients`` at once): each is created (createEtchPacket, one 3-page document), its two signers'
URLs asked for, and both sign. Every event of the packets (about six each) is a webhook delivery.

Printed: the rate packets arrived at and were sealed at; the last signature to sealed (the
packet's ``sealed_at`` minus its last signer's ``completed_at``, both the server's clock) median
and p95, overall and for the first and last 50 packets (flat latency: the two bins alike); the
etchPacketComplete event to its arrival at the receiver (p50, p95); how long until every
delivery arrived; then the CPU of sealing one packet (``--seal-runs`` of them sealed again in
the benchmark's process, after the workers stopped). The machine is shared: compare runs made
one after the other, not with figures taken on another day.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
# bench/webhooks.py would hide the webhooks app: the app is imported first, bench/ put last.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != BENCH]
import webhooks  # noqa: E402, F401 - the app, before bench/ is on the path

sys.path.append(str(BENCH))
from _server import Server, free_port, prepare_environment  # noqa: E402
from seal import Packets, contract  # noqa: E402

from bench.webhooks import Receiver  # noqa: E402

RUN_DEADLINE_SECONDS = 1800.0


class ProductionServer:
    """gunicorn as production runs it (gunicorn.conf.py: WEB_CONCURRENCY processes, threads)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py"],
            cwd=ROOT,
            env={**os.environ, "PORT": str(self.port), "GUNICORN_LOG_LEVEL": "warning"},
        )
        # Server's request() and its wait for /healthz, on this port.
        self._client = Server.__new__(Server)
        self._client.port = self.port
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if self.request("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def request(self, *args: object, **kwargs: object) -> tuple[int, bytes]:
        return self._client.request(*args, **kwargs)  # type: ignore[arg-type]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def start_workers(queues: list[str], data_dir: Path) -> list[subprocess.Popen]:
    workers = []
    for n, queue_name in enumerate(queues):
        command = [sys.executable, "manage.py", "worker", "--queue-name", queue_name]
        command += ["--no-reload", "--worker-id", f"bench-burst-{n}"]
        log = (data_dir / f"worker-{n}.log").open("w")
        workers.append(
            subprocess.Popen(command, cwd=ROOT, env=os.environ.copy(), stdout=log, stderr=log)
        )
    return workers


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            worker.kill()


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def describe(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"p50 {statistics.median(values):6.2f} s  p95 {percentile(values, 0.95):6.2f} s  "
        f"max {max(values):6.2f} s  ({len(values)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packets", type=int, default=300)
    parser.add_argument("--rate", type=float, default=5.0, help="packets started per second")
    parser.add_argument("--clients", type=int, default=16, help="packets under way at most")
    parser.add_argument(
        "--workers", default="default;*", help="each worker's --queue-name, ';'-separated"
    )
    parser.add_argument("--database-url", required=True, help="an empty PostgreSQL database")
    parser.add_argument(
        "--seal-runs", type=int, default=30, help="packets sealed again to time the seal's CPU"
    )
    args = parser.parse_args()

    from tests.esign.sealpki import softhsm_available, softhsm_key

    if not softhsm_available():
        raise SystemExit("SoftHSM2 and pkcs11-tool are needed (bash scripts/bootstrap.sh test)")
    key = softhsm_key()
    os.environ.update(
        {
            "SEAL_PKCS11_MODULE": key.module,
            "SEAL_PKCS11_TOKEN_LABEL": key.token_label,
            "SEAL_PKCS11_KEY_LABEL": key.key_label,
            "SEAL_PKCS11_PIN": key.pin,
            "GUNICORN_CMD_ARGS": "--access-logfile /dev/null",
        }
    )
    data_dir = prepare_environment(
        args.database_url,
        prefix="bench-burst-",
        TASKS_BACKEND="database",
        FETCH_ALLOW_NETWORKS="127.0.0.0/8",
    )
    from django.db import connection

    from accounts.models import ApiKey
    from accounts.services import api_key_create, organization_create
    from esign.models import Packet, Signer
    from webhooks.models import WebhookDelivery, WebhookEvent
    from webhooks.services import endpoint_url_set

    receiver = Receiver()
    organization = organization_create(slug="bench", name="Bench")
    endpoint_url_set(organization=organization, url=receiver.url)
    _, api_key = api_key_create(organization=organization, kind=ApiKey.Kind.PRODUCTION)
    queues = args.workers.split(";")
    print(
        f"{args.packets} two-signer packets at {args.rate}/s ({args.clients} at once at most); "
        f"{connection.vendor}; workers: {', '.join(f'--queue-name {q!r}' for q in queues)}"
    )

    server = ProductionServer()
    workers = start_workers(queues, data_dir)
    pdf = contract()
    groups: list[str] = []  # in the order of their last signature
    lock = threading.Lock()
    try:
        time.sleep(5)  # Django set up in the workers
        bench = Packets(server, api_key, pdf, pause=0)  # type: ignore[arg-type]

        def one_packet() -> None:
            group, signer, token = bench.ready()
            bench.sign(signer, token, "Signer Two")
            with lock:
                groups.append(group)

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=args.clients) as pool:
            futures = []
            for n in range(args.packets):
                time.sleep(max(0.0, started + n / args.rate - time.monotonic()))
                futures.append(pool.submit(one_packet))
            for future in futures:
                future.result()
        arrived = time.monotonic() - started
        sealed = Packet.objects.filter(seal_status="sealed")
        deadline = time.monotonic() + RUN_DEADLINE_SECONDS
        while sealed.count() < args.packets and time.monotonic() < deadline:
            time.sleep(0.5)
        all_sealed = time.monotonic() - started
        deliveries = WebhookDelivery.objects.filter(organization=organization)
        while (
            deliveries.filter(status=WebhookDelivery.Status.PENDING).exists()
            and time.monotonic() < deadline
        ):
            time.sleep(0.5)
        all_delivered = time.monotonic() - started
        worker_cpu = sum(cpu_seconds(worker.pid) for worker in workers)
    finally:
        stop_workers(workers)
        server.stop()

    latency = {}
    for packet in Packet.objects.filter(document_group__eid__in=groups).select_related(
        "document_group"
    ):
        last = Signer.objects.filter(packet=packet).order_by("-completed_at").first()
        if packet.sealed_at and last and last.completed_at:
            latency[packet.document_group.eid] = (
                packet.sealed_at - last.completed_at
            ).total_seconds()
    ordered = [latency[g] for g in groups if g in latency]
    complete = []
    for event in WebhookEvent.objects.filter(
        organization=organization, action="etchPacketComplete"
    ):
        arrival = receiver.arrived.get(f"msg_{event.eid}")
        if arrival is not None:
            complete.append(arrival - event.created_at.timestamp())
    print(
        f"arrived at {args.packets / arrived:.2f} packets/s ({arrived:.1f} s); all sealed after "
        f"{all_sealed:.1f} s ({len(ordered)}/{args.packets}: {len(ordered) / all_sealed:.2f}/s "
        f"overall); {deliveries.count()} deliveries, all arrived after {all_delivered:.1f} s"
    )
    print(
        f"the workers' CPU: {worker_cpu:.1f} s in all, {worker_cpu / args.packets * 1000:.0f} ms "
        "per packet (its seal and its deliveries)"
    )
    print(f"last signature -> sealed          {describe(ordered)}")
    print(f"  first 50                        {describe(ordered[:50])}")
    print(f"  last 50                         {describe(ordered[-50:])}")
    print(f"etchPacketComplete -> received    {describe(complete)}")
    receiver.server.shutdown()
    seal_cpu(Packet.objects.filter(document_group__eid__in=groups[: args.seal_runs]))


def seal_cpu(packets: object) -> None:
    """CPU of sealing one packet (the 3-page document and its audit trail, B-B, the SoftHSM2
    key) in this process: each packet of the burst sealed again, its seal undone first."""
    from esign.models import Packet, PacketDocument
    from esign.sealing.seal import packet_seal

    def unseal(packet: Packet) -> None:
        Packet.objects.filter(pk=packet.pk).update(
            seal_status="pending", audit_trail_sha256="", audit_trail_path=""
        )
        PacketDocument.objects.filter(packet=packet).update(sealed_sha256="", sealed_path="")

    samples = []
    for n, packet in enumerate(packets):  # type: ignore[attr-defined]
        unseal(packet)
        started = time.process_time()
        packet_seal(packet_id=packet.pk)
        if n >= 2:  # the first ones open the HSM session and warm the caches
            samples.append((time.process_time() - started) * 1000)
    if samples:
        print(
            f"seal CPU per packet (document + trail, in-process) median "
            f"{statistics.median(samples):.1f} ms, p95 {percentile(samples, 0.95):.1f} ms "
            f"({len(samples)} packets)"
        )


if __name__ == "__main__":
    main()
