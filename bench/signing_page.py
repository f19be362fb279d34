"""How soon a signer on a phone sees the first page of the signing page, for a short and a long
packet.

Sets the service up as the run command does (scripts/run.sh: migrate, collectstatic, the demo
objects, gunicorn with gunicorn.conf.py and the run command's environment) on a throwaway data
directory, makes two packets with the demo API key, both starting with the IRS W-9 (a dense
form, the heaviest first page of our fixtures): "3 pages" (the W-9's first three pages) and
"200 pages" (the whole W-9, then a 194-page agreement). Each packet's signing link is opened in
Debian's Chromium on a phone (390x844, device pixel ratio 3) with the throttling of
Lighthouse's mobile profile, through the DevTools protocol: 4x CPU slowdown, 150 ms round trips,
1.6 Mbps down, 750 kbps up. Each run is a new browser context (an empty cache); a second load in
the same context shows the cost with a warm cache. The packets are test packets (a TEST mark
across every page), or with ``--real`` packets as a signer gets them (the pages as they are).

Prints, per packet, per run and as the median: the time from the start of navigation to the
first page of the document painted (the browser's largest-contentful-paint entry for the first
page's picture: what a signer sees), the time the page's script marks it drawn
(``.sg-page.is-rendered``, set on the picture's load event: later than the paint when the
phone's CPU is busy running the scripts) and the bytes transferred; then the signing page's HTML (bytes as
produced, bytes as sent to a browser that accepts gzip) and the time the server takes to produce
it (unthrottled, on loopback, median of 9). Target: the first page within 2 s, for either packet.

    python bench/signing_page.py [--runs 5] [--cpu 4] [--kbps 1600] [--rtt 150] [--dpr 3] [--real]
"""

from __future__ import annotations

import argparse
import base64
import gzip
import io
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._server import free_port  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
W9 = Path("/work/shared/fixtures/pdfs/irs-fw9-2018.pdf")
CREATE = (
    "mutation($name: String, $files: [EtchFile!], $signers: [JSON!], $isTest: Boolean) {"
    " createEtchPacket("
    "name: $name, files: $files, signers: $signers, isTest: $isTest) { documentGroup { signers {"
    " eid } } } }"
)
SIGN_URL = 'mutation($s: String!) { generateEtchSignURL(signerEid: $s, clientUserId: "bench") }'
# Records when the first page's picture is on screen, in the page's own clock (milliseconds
# since the start of navigation).
FIRST_PAGE_PROBE = """
window.__firstPage = null;
window.__firstPaint = null;
new MutationObserver((_, observer) => {
  if (document.querySelector(".sg-page.is-rendered")) {
    window.__firstPage = performance.now();
    observer.disconnect();
  }
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (window.__firstPaint === null && entry.element && entry.element.closest(".sg-page")) {
      window.__firstPaint = entry.renderTime || entry.startTime;
    }
  }
}).observe({ type: "largest-contentful-paint", buffered: true });
"""


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def start_service(data_dir: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    """The run command's steps on ``data_dir``; the server process, its base URL and the demo
    API key."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DATA_DIR": str(data_dir),
        "DATABASE_URL": f"sqlite:///{data_dir / 'bench.sqlite3'}",
        "PUBLIC_BASE_URL": base,
        "SECRET_KEY": secrets.token_urlsafe(40),
        "LOG_LEVEL": "WARNING",
        # The bench makes its packets with the demo key: never throttled here.
        "RATE_LIMIT_DEVELOPMENT": "1000000",
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
    }
    manage(env, "migrate", "--noinput", "-v0")
    if "collectstatic" in (ROOT / "scripts" / "run.sh").read_text():
        manage(env, "collectstatic", "--noinput", "-v0")
    manage(env, "demo_setup")  # the demo organization and its API key (DATA_DIR/demo-api-key)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "-b", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120  # a busy machine starts gunicorn slowly
    while True:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2):
                break
        except OSError:
            if time.monotonic() > deadline:
                server.terminate()
                raise RuntimeError("the server did not start") from None
            time.sleep(0.2)
    return server, base, (data_dir / "demo-api-key").read_text().strip()


def pdf_pages(pdf: bytes, count: int) -> bytes:
    """The first ``count`` pages of ``pdf``."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(pdf)).pages[:count]:
        writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def agreement(pages: int) -> bytes:
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792), invariant=1)
    for number in range(1, pages + 1):
        canvas.setFont("Helvetica", 11)
        for line in range(40):
            canvas.drawString(72, 720 - line * 16, f"Page {number}, clause {line + 1}: terms.")
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def graphql(base: str, key: str, query: str, variables: dict) -> dict:
    request = urllib.request.Request(
        f"{base}/graphql",
        data=json.dumps({"query": query, "variables": variables}).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode(),
        },
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        body = json.loads(response.read())
    assert "errors" not in body, body
    return body["data"]


def packet_url(
    base: str, key: str, name: str, files: list[tuple[str, bytes]], *, is_test: bool = True
) -> str:
    """A W-9-first packet of ``files`` (id, PDF) with one embedded signer, who signs on the
    first page; their signing link."""
    upload = [
        {
            "id": file_id,
            "title": file_id,
            "file": {
                "data": base64.b64encode(pdf).decode(),
                "filename": f"{file_id}.pdf",
                "mimetype": "application/pdf",
            },
            "fields": [
                {
                    "id": f"{file_id}-sig",
                    "type": "signature",
                    "pageNum": 0,
                    "rect": {"x": 100, "y": 180, "width": 300, "height": 30},
                }
            ],
        }
        for file_id, pdf in files
    ]
    signer = {
        "id": "signer",
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "signerType": "embedded",
        "fields": [{"fileId": file_id, "fieldId": f"{file_id}-sig"} for file_id, _ in files],
    }
    created = graphql(
        base,
        key,
        CREATE,
        {"name": name, "files": upload, "signers": [signer], "isTest": is_test},
    )
    [made] = created["createEtchPacket"]["documentGroup"]["signers"]
    url = graphql(base, key, SIGN_URL, {"s": made["eid"]})["generateEtchSignURL"]
    return base + url[url.index("/", len("https://")) :]


def html_figures(url: str, runs: int = 9) -> tuple[int, int, float]:
    """The signing page's HTML: (bytes as produced, bytes sent with gzip accepted, median ms
    to produce it), unthrottled on loopback."""
    times, raw, sent = [], 0, 0
    for _ in range(runs):
        request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read()
            encoded = response.headers.get("Content-Encoding") == "gzip"
        times.append((time.perf_counter() - started) * 1000)
        sent = len(body)
        raw = len(gzip.decompress(body)) if encoded else len(body)
    return raw, sent, statistics.median(times)


def throttled_load(context, url: str, args: argparse.Namespace) -> tuple[float, float, int]:
    """Load ``url`` in a new tab of ``context`` under throttling; (ms to the first page's
    picture painted, ms to the script marking it drawn, bytes transferred)."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": args.rtt,
            "downloadThroughput": args.kbps * 1000 / 8,
            "uploadThroughput": 750 * 1000 / 8,
        },
    )
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.cpu})
    transferred = [0]

    def count(event: dict) -> None:
        transferred[0] += event["encodedDataLength"]

    cdp.on("Network.loadingFinished", count)
    page.goto(url, wait_until="commit")
    deadline = time.monotonic() + 120
    probe = "() => [window.__firstPaint, window.__firstPage]"
    while None in (times := page.evaluate(probe)):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the first page was not drawn within 2 minutes: {times}")
        time.sleep(0.05)
    page.wait_for_load_state("networkidle")
    page.close()
    return times[0], times[1], transferred[0]


def measure(browser, url: str, args: argparse.Namespace, label: str) -> dict[str, float]:
    cold, marked, warm, sizes = [], [], [], []
    for run in range(args.runs):
        context = browser.new_context(
            viewport={"width": 390, "height": 844},
            device_scale_factor=args.dpr,
            is_mobile=True,
            has_touch=True,
        )
        context.add_init_script(FIRST_PAGE_PROBE)
        first, mark, size = throttled_load(context, url, args)
        again, _, _ = throttled_load(context, url, args)
        context.close()
        cold.append(first)
        marked.append(mark)
        warm.append(again)
        sizes.append(size)
        print(
            f"{label}, run {run + 1}: first page painted {first / 1000:.2f} s (empty cache; "
            f"marked by the script {mark / 1000:.2f} s), {again / 1000:.2f} s (warm cache); "
            f"{size / 1e6:.2f} MB transferred"
        )
    raw, sent, produce = html_figures(url)
    return {
        "cold": statistics.median(cold),
        "min": min(cold),
        "max": max(cold),
        "marked": statistics.median(marked),
        "warm": statistics.median(warm),
        "size": statistics.median(sizes),
        "raw": raw,
        "sent": sent,
        "produce": produce,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cpu", type=float, default=4, help="CPU slowdown factor")
    parser.add_argument("--kbps", type=int, default=1600, help="download throughput, kbit/s")
    parser.add_argument("--rtt", type=int, default=150, help="added round-trip latency, ms")
    parser.add_argument("--dpr", type=float, default=3, help="the phone's device pixel ratio")
    parser.add_argument(
        "--real",
        action="store_true",
        help="packets that are not test packets (no TEST mark drawn over the pages)",
    )
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    data_dir = Path(tempfile.mkdtemp(prefix="bench-signing-"))
    server, base, key = start_service(data_dir)
    w9 = W9.read_bytes()
    figures = {}
    try:
        packets = {
            "3 pages": packet_url(
                base, key, "W-9, 3 pages", [("w9", pdf_pages(w9, 3))], is_test=not args.real
            ),
            "200 pages": packet_url(
                base,
                key,
                "W-9 and an agreement, 200 pages",
                [("w9", w9), ("terms", agreement(194))],
                is_test=not args.real,
            ),
        }
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            for label, url in packets.items():
                figures[label] = measure(browser, url, args, label)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    print(
        f"\nSigning page on a phone (390 px, DPR {args.dpr:g}, {args.cpu:g}x CPU slowdown, "
        f"{args.kbps} kbit/s, {args.rtt} ms RTT), {base}; target: first page at most 2 s"
    )
    for label, f in figures.items():
        print(
            f"  {label}: first page painted, empty cache: median {f['cold'] / 1000:.2f} s "
            f"(min {f['min'] / 1000:.2f}, max {f['max'] / 1000:.2f}; marked drawn by the "
            f"script {f['marked'] / 1000:.2f} s); warm cache "
            f"{f['warm'] / 1000:.2f} s; transferred {f['size'] / 1e6:.2f} MB\n"
            f"  {label}: HTML {f['raw'] / 1000:.1f} kB as produced, {f['sent'] / 1000:.1f} kB "
            f"sent (gzip accepted), produced in {f['produce']:.0f} ms (median, unthrottled)"
        )


if __name__ == "__main__":
    main()
