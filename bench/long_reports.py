"""Long reports: 91- and 181-page HTML tables, and reports of chapters that each open a page,
through POST /api/v1/generate-pdf and through plain WeasyPrint, in the same run.

    python bench/long_reports.py [--rows 3350 6650] [--chapters 40] [--nice 10] [--api-only]
                                 [--repeat 2] [--recycle-mb 400]

For each table: wall time of the request (gunicorn, one process, on loopback), the render
workers' CPU time (all of them: a long table renders in parts on several, generate.engine.parts)
and the peak resident memory of each (VmHWM, sampled every 50 ms from /proc), then the same HTML
rendered by plain WeasyPrint (``HTML(string=...).write_pdf()``) in a fresh process at the same
niceness as the render workers (GENERATE_WORKER_NICE): its wall time, CPU time and peak
resident memory. ``--repeat`` runs each comparison again. ``--recycle-mb`` keeps the service's
recycle limit (GENERATE_WORKER_RECYCLE_MB, 400 by default; the bench's default is 0, so that each
worker's peak stays readable): a worker replaced after a document shows as a new one in the
next line's peaks. The host is shared: compare the
ratios of one run, not figures across runs. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import atexit
import http.client
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PLAIN = """
import json, os, resource, sys, time
os.nice(int(sys.argv[1]))
import weasyprint
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
html = sys.stdin.read()
started, cpu_started = time.monotonic(), cpu()
pdf = weasyprint.HTML(string=html).write_pdf()
figures = {"wall": time.monotonic() - started, "cpu": cpu() - cpu_started,
           "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
print(json.dumps(figures))
"""


def html_table(rows: int) -> str:
    cells = "".join(
        f"<tr><td>{i}</td><td>Item {i}</td><td>{i * 3.5:.2f}</td></tr>" for i in range(rows)
    )
    return f"<table>{cells}</table>"


LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt"
    " ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation"
    " ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dolor in"
    " reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur."
)


def html_chapters(chapters: int) -> str:
    """A report of ``chapters`` chapters of text (about two pages each), each opening a page:
    no long table, so it is cut at its page breaks (generate.engine.parts)."""
    body = "".join(
        f'<section style="break-before: page"><h2>Chapter {i + 1}</h2>'
        + "".join(f"<p>{i + 1}.{j + 1} {LOREM}</p>" for j in range(16 + i % 5))
        + "</section>"
        for i in range(chapters)
    )
    return f"<h1>Report</h1>{body}"


def descendants(pid: int) -> list[int]:
    out: list[int] = []
    children = []
    # Children are listed under the thread that started them (a request thread starts the
    # render workers), so every thread's list.
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children.extend((task / "children").read_text().split())
        except OSError:
            continue
    for child in map(int, children):
        out.append(child)
        out.extend(descendants(child))
    return out


def render_workers(root: int) -> dict[int, tuple[float, float]]:
    """Render workers under ``root``: pid -> (CPU seconds so far, peak resident MB)."""
    found = {}
    tick = 100.0  # USER_HZ on Linux
    for pid in descendants(root):
        try:
            if b"generate.engine.worker" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu = (int(fields[11]) + int(fields[12])) / tick
            peak = next(
                int(line.split()[1]) / 1024
                for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                if line.startswith("VmHWM:")
            )
        except (OSError, StopIteration, IndexError, ValueError):
            continue
        found[pid] = (cpu, peak)
    return found


class Sampler:
    """Samples the render workers every 50 ms while a request runs: the CPU each used during it
    and the highest peak resident memory seen."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.before = render_workers(root)
        self.last: dict[int, tuple[float, float]] = dict(self.before)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.last.update(render_workers(self.root))
            time.sleep(0.05)

    def stop(self) -> tuple[float, dict[int, float]]:
        """CPU-seconds the workers used during the request, and each worker's peak MB."""
        self._stop.set()
        self._thread.join()
        self.last.update(render_workers(self.root))
        cpu = sum(c - self.before.get(pid, (0.0, 0.0))[0] for pid, (c, _) in self.last.items())
        return cpu, {pid: peak for pid, (_, peak) in self.last.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[3350, 6650])
    parser.add_argument("--chapters", type=int, nargs="*", default=[], help="reports of chapters")
    parser.add_argument("--nice", type=int, default=10, help="niceness of plain WeasyPrint")
    parser.add_argument("--api-only", action="store_true", help="no plain WeasyPrint renders")
    parser.add_argument("--repeat", type=int, default=1, help="run each comparison this often")
    parser.add_argument("--recycle-mb", type=int, default=0, help="GENERATE_WORKER_RECYCLE_MB")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    from bench._server import Server, pdf_api_headers, prepare_environment

    # Two render workers, kept after heavy documents so that their peak can be read (unless
    # --recycle-mb); no
    # address-space limit (the peaks are what is measured), nor limit of cells and elements
    # (--rows 37000 is 111,000 cells).
    prepare_environment(
        GENERATE_WORKER_RECYCLE_MB=str(args.recycle_mb),
        GENERATE_MAX_PAGES="5000",
        GENERATE_WORKER_MEMORY_MB="0",
        GENERATE_MAX_TABLE_CELLS="0",
        GENERATE_MAX_ELEMENTS="0",
    )
    headers = pdf_api_headers()
    server = Server()
    atexit.register(server.stop)

    def post(html: str) -> tuple[int, bytes]:
        body = json.dumps({"type": "html", "data": {"html": html}}).encode()
        sent = headers
        if len(body) > 1_000_000:  # past the JSON limit: multipart, one part per property
            boundary = "long-reports-boundary"
            parts = {"type": "html", "data": json.dumps({"html": html})}
            body = (
                b"".join(
                    f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                    f"{value}\r\n".encode()
                    for name, value in parts.items()
                )
                + f"--{boundary}--\r\n".encode()
            )
            sent = {**headers, "Content-Type": f"multipart/form-data; boundary={boundary}"}
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=3600)
        try:
            connection.request("POST", "/api/v1/generate-pdf", body=body, headers=sent)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    post("<p>warm-up</p>")  # a render worker started and warm
    post(html_table(2000))  # in parts: the second worker is started in the background ...
    time.sleep(10)
    post(html_table(2000))  # ... and borrowed
    import io

    import pypdf

    print("long reports: POST /api/v1/generate-pdf vs plain WeasyPrint, same run")
    print(
        f"{'document':26} {'pages':>5} {'status':>6} {'wall s':>7} {'CPU s':>7} {'peak MB':>8}"
        "  peak MB of each worker"
    )
    documents = [(f"{rows}-row table", html_table(rows)) for rows in args.rows] + [
        (f"{count} chapters", html_chapters(count)) for count in args.chapters
    ]
    for name, html in documents:
        for _ in range(args.repeat):
            sampler = Sampler(server.process.pid)
            started = time.monotonic()
            status, content = post(html)
            wall = time.monotonic() - started
            cpu, peaks = sampler.stop()
            pages = len(pypdf.PdfReader(io.BytesIO(content)).pages) if status == 200 else 0
            detail = "" if status == 200 else f"  {content[:160].decode(errors='replace')}"
            each = " / ".join(f"{peak:.0f}" for _, peak in sorted(peaks.items()))
            print(
                f"{f'{name}, API':26} {pages:5} {status:6} {wall:7.1f} {cpu:7.1f} "
                f"{max(peaks.values(), default=0.0):8.0f}  {each}{detail}"
            )
            if args.api_only:
                continue
            plain = subprocess.run(
                [sys.executable, "-c", PLAIN, str(args.nice)],
                input=html,
                capture_output=True,
                text=True,
                check=True,
            )
            figures = json.loads(plain.stdout.strip().splitlines()[-1])
            print(
                f"{f'{name}, plain':26} {'':5} {'':6} {figures['wall']:7.1f} "
                f"{figures['cpu']:7.1f} {figures['peak_mb']:8.0f}"
            )
            if status == 200:
                print(
                    f"{'':26} API / plain: wall {wall / figures['wall']:.2f}, "
                    f"CPU {cpu / figures['cpu']:.2f}"
                )


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    main()
