"""Memory of one render worker: resident size when warm, after documents of growing weight, and
the peak, with and without recycling by resident size.

    python bench/render_memory.py [--recycle-mb 400]

Renders in a `RenderPool` of one worker (no server, no database): a one-page Markdown document, a
10-page Markdown table, a 2,000-row and a 10,000-row HTML table. After each it prints the
worker's resident memory (VmRSS) and its peak so far (VmHWM), and whether the pool replaced the
worker (GENERATE_WORKER_RECYCLE_MB). Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.engine.fetch import FetchPolicy  # noqa: E402
from generate.engine import (  # noqa: E402
    PoolSettings,
    RenderPool,
    ResourceFetcher,
    build_render_job,
    parse_generate_request,
)

NOW = datetime.datetime(2026, 11, 23, tzinfo=datetime.UTC)


def job(body: dict[str, object]):  # noqa: ANN201
    request = parse_generate_request(body, font_check=lambda family: None, max_source_bytes=10**8)
    return build_render_job(
        request,
        now=NOW,
        fetcher=ResourceFetcher(policy=FetchPolicy()),
        font_css=lambda family: "",
        default_logo_url="file:///nonexistent/logo.svg",
        watermark=False,
        max_pages=5000,
    )


def html_table(rows: int) -> dict[str, object]:
    cells = "".join(
        f"<tr><td>{i}</td><td>Item {i}</td><td>{i * 3.5:.2f}</td></tr>" for i in range(rows)
    )
    return {"type": "html", "data": {"html": f"<table>{cells}</table>"}}


DOCUMENTS = [
    (
        "one-page Markdown",
        {"data": [{"heading": "Report", "content": "Some **text**.\n\n- a\n- b"}]},
    ),
    (
        "10-page Markdown table",
        {"data": [{"table": {"rows": [[f"r{i}", "x" * 40, str(i)] for i in range(400)]}}]},
    ),
    ("2,000-row HTML table", html_table(2000)),
    ("10,000-row HTML table", html_table(10000)),
    ("one-page Markdown again", {"data": [{"content": "after the heavy ones"}]}),
]


def memory(pid: int) -> tuple[float, float]:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            values[line.split(":")[0]] = int(line.split()[1]) / 1024
    return values["VmRSS"], values["VmHWM"]


def run(recycle_mb: int) -> None:
    pool = RenderPool(PoolSettings(workers=1, recycle_rss_bytes=recycle_mb * 2**20))
    label = f"recycle above {recycle_mb} MB" if recycle_mb else "no recycling"
    print(f"\n{label}")
    print(f"{'document':28} {'pages':>5} {'seconds':>8} {'RSS MB':>7} {'peak MB':>8}  worker")
    try:
        pool.run(job({"data": []}), timeout=300, queue_timeout=60)
        pid = pool._idle[0].process.pid
        rss, peak = memory(pid)
        print(f"{'warm, before any document':28} {'':>5} {'':>8} {rss:7.0f} {peak:8.0f}  {pid}")
        for name, body in DOCUMENTS:
            started = time.perf_counter()
            rendered = pool.run(job(body), timeout=300, queue_timeout=60)
            seconds = time.perf_counter() - started
            if pool._idle:
                rss, peak = memory(pool._idle[0].process.pid)
                state = "kept" if pool._idle[0].process.pid == pid else "new worker, kept"
                pid = pool._idle[0].process.pid
                print(
                    f"{name:28} {rendered.pages:5} {seconds:8.2f} {rss:7.0f} {peak:8.0f}  {state}"
                )
            else:
                print(f"{name:28} {rendered.pages:5} {seconds:8.2f} {'-':>7} {'-':>8}  replaced")
    finally:
        pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recycle-mb", type=int, default=400)
    args = parser.parse_args()
    run(0)
    run(args.recycle_mb)


if __name__ == "__main__":
    main()
