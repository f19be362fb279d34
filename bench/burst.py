"""A burst of two-signer packets signed through HTTP while task workers seal them and deliver
their webhooks, measured as the integrator sees it: how long from the last signature to the
sealed packet and to the webhooks at its receiver, and whether that grows with the backlog.

    python bench/burst.py --database-url postgres://postgres@127.0.0.1:5432/<empty database>
                          [--packets 300] [--rate 5] [--workers 'default;*'] [--clients 16]
                          [--competitor 'stress-ng --cpu 2'] [--bin 50]

The production server (gunicorn.conf.py: 2 processes, threaded) and one ``manage.py worker`` per
``;``-separated entry of ``--workers`` (each entry is that worker's ``--queue-name``; the default
is what scripts/run.sh starts) serve a database of their own; the seal's key is in a SoftHSM2
token made for the run (PAdES-B-B, no TSA), as bench/seal.py does. The organization's webhook URL
is a receiver on 127.0.0.1 answering 200 at once. Packets start at ``--rate`` per second (0: as
fast as the ``--clients`` go, that is at the rate the service takes them): each is created
(createEtchPacket, one 3-page document), its two signers' URLs asked for, and both sign. Every
event of the packets (about six each) is a webhook delivery. ``--competitor`` runs a command
beside the service for the whole run, at the same priority (a controlled load, not whatever else
the machine runs).

Printed, with the load average at the start and the end: the rate packets arrived at and were
sealed at (seals/s from the first packet's last signature to the last seal); per packet, from its
last signature (its last signer's ``completed_at``, the server's clock) to ``sealedAt`` and to
the arrival of ``etchPacketComplete`` and ``etchPacketSealed`` at the receiver (the same
machine's clock), median and p95 overall and by bins of ``--bin`` packets in the order they were
completed (flat: the bins alike); how long until every delivery arrived; the CPU of each process
tree (the server, each worker, the competitor) over the run; then the CPU of sealing one packet
(``--seal-runs`` of them sealed again in the benchmark's process, after the workers stopped).
The machine is shared: compare runs made one after the other, not with figures taken on another
day.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
# bench/webhooks.py would hide the webhooks app: the app is imported first, bench/ put last.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != BENCH]
import webhooks  # noqa: E402, F401 - the app, before bench/ is on the path

sys.path.append(str(BENCH))
from _processes import Competitor, CpuMeter, load_average  # noqa: E402
from _server import Server, free_port  # noqa: E402
from seal import Packets, contract, use_softhsm_token  # noqa: E402

from bench.webhooks import delivering_setup, start_worker, stop_workers  # noqa: E402

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
    return [
        start_worker(
            [
                "worker",
                "--queue-name",
                queue_name,
                "--no-reload",
                "--worker-id",
                f"bench-burst-{n}",
            ],
            data_dir / f"worker-{n}.log",
        )
        for n, queue_name in enumerate(queues)
    ]


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
    parser.add_argument(
        "--rate", type=float, default=5.0, help="packets started per second (0: unpaced)"
    )
    parser.add_argument("--clients", type=int, default=16, help="packets under way at most")
    parser.add_argument(
        "--workers", default="default;*", help="each worker's --queue-name, ';'-separated"
    )
    parser.add_argument("--database-url", required=True, help="an empty PostgreSQL database")
    parser.add_argument(
        "--seal-runs", type=int, default=30, help="packets sealed again to time the seal's CPU"
    )
    parser.add_argument("--competitor", default="", help="a command run beside the service")
    parser.add_argument("--bin", type=int, default=50, help="packets a bin, in completion order")
    args = parser.parse_args()

    use_softhsm_token()
    os.environ["GUNICORN_CMD_ARGS"] = "--access-logfile /dev/null"
    data_dir, receiver, organization = delivering_setup(args.database_url, "bench-burst-")
    from django.db import connection

    from accounts.models import ApiKey
    from accounts.services import api_key_create
    from esign.models import Packet
    from webhooks.models import WebhookDelivery

    _, api_key = api_key_create(organization=organization, kind=ApiKey.Kind.PRODUCTION)
    queues = args.workers.split(";")
    print(
        f"{args.packets} two-signer packets at {args.rate}/s ({args.clients} at once at most); "
        f"{connection.vendor}; workers: {', '.join(f'--queue-name {q!r}' for q in queues)}"
    )

    print(f"load average at the start (1 / 5 / 15 min): {load_average()}")
    server = ProductionServer()
    workers = start_workers(queues, data_dir)
    competitor = (
        Competitor(args.competitor, data_dir / "competitor.log") if args.competitor else None
    )
    processes = {"server (gunicorn and its pools)": server.process.pid}
    processes |= {
        f"worker {n + 1} --queue-name {q!r}": w.pid
        for n, (q, w) in enumerate(zip(queues, workers, strict=True))
    }
    if competitor is not None:
        processes[f"competitor: {competitor.command}"] = competitor.pid
    meter = CpuMeter(processes)
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

        meter.start()
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=args.clients) as pool:
            futures = []
            for n in range(args.packets):
                if args.rate > 0:
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
        meter.stop()
        load_at_end = load_average()
    finally:
        if competitor is not None:
            competitor.stop()
        stop_workers(workers, timeout=60)
        server.stop()

    timings = packet_timings(groups, receiver.arrived)
    sealed_at = [t.sealed_at for t in timings if t.sealed_at is not None]
    first_signed = min((t.signed_at for t in timings), default=0.0)
    seal_span = max(sealed_at, default=first_signed) - first_signed
    print(
        f"arrived at {args.packets / arrived:.2f} packets/s ({arrived:.1f} s); all sealed after "
        f"{all_sealed:.1f} s ({len(sealed_at)}/{args.packets}: "
        f"{len(sealed_at) / max(seal_span, 1e-9):.2f} seals/s from the first last signature to "
        f"the last seal); {deliveries.count()} deliveries, all arrived after {all_delivered:.1f} s"
    )
    print(
        f"createEtchPacket refused while the seals were behind (RateLimitError, waited out and "
        f"sent again): {bench.refused}"
    )
    print(f"load average at the end (1 / 5 / 15 min): {load_at_end}")
    print(f"CPU by process over {all_delivered:.0f} s:")
    print("\n".join(meter.lines(all_delivered, args.packets)))
    print(
        f"from the last signature     {'-> sealedAt':<34}{'-> etchPacketComplete':<34}-> etchPacketSealed"
    )
    rows = [("all", timings)]
    rows += [
        (f"{n + 1}-{min(n + args.bin, len(timings))}", timings[n : n + args.bin])
        for n in range(0, len(timings), args.bin)
    ]
    for label, chunk in rows:
        print(
            f"  {label:<26}{brief([t.sealed for t in chunk]):<34}"
            f"{brief([t.complete for t in chunk]):<34}{brief([t.sealed_hook for t in chunk])}"
        )
    receiver.server.shutdown()
    seal_cpu(Packet.objects.filter(document_group__eid__in=groups[: args.seal_runs]))


@dataclass(frozen=True)
class PacketTiming:
    signed_at: float  # the last signature (epoch seconds)
    sealed_at: float | None
    sealed: float | None  # seconds from the last signature to sealedAt
    complete: float | None  # ... to etchPacketComplete's arrival at the receiver
    sealed_hook: float | None  # ... to etchPacketSealed's


def packet_timings(groups: list[str], arrived: dict[str, float]) -> list[PacketTiming]:
    """Each packet's figures, in the order their last signature was made (completion order)."""
    from django.db.models import Max

    from esign.models import Packet
    from webhooks.models import WebhookEvent

    hooks: dict[tuple[str, str], float] = {}
    events = WebhookEvent.objects.filter(action__in=["etchPacketComplete", "etchPacketSealed"])
    for eid, action, data in events.values_list("eid", "action", "data"):
        when = arrived.get(f"msg_{eid}")
        if when is not None:
            hooks[(data["documentGroup"]["eid"], action)] = when
    timings = []
    packets = (
        Packet.objects.filter(document_group__eid__in=groups)
        .annotate(last_signed=Max("signers__completed_at"))
        .values_list("document_group__eid", "last_signed", "sealed_at")
    )
    for group, last_signed, sealed_at in packets:
        if last_signed is None:
            continue
        signed = last_signed.timestamp()
        sealed = sealed_at.timestamp() if sealed_at else None
        complete = hooks.get((group, "etchPacketComplete"))
        sealed_hook = hooks.get((group, "etchPacketSealed"))
        timings.append(
            PacketTiming(
                signed_at=signed,
                sealed_at=sealed,
                sealed=None if sealed is None else sealed - signed,
                complete=None if complete is None else complete - signed,
                sealed_hook=None if sealed_hook is None else sealed_hook - signed,
            )
        )
    return sorted(timings, key=lambda t: t.signed_at)


def brief(values: list[float | None]) -> str:
    """Median / p95 (and how many were missing) of a bin."""
    known = [v for v in values if v is not None]
    if not known:
        return "none"
    text = f"{statistics.median(known):6.2f} / {percentile(known, 0.95):6.2f} s"
    missing = len(values) - len(known)
    return text + (f" ({missing} missing)" if missing else "")


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
