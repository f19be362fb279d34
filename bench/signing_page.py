"""How soon a signer on a phone sees the first page of the signing page.

Sets the service up as the run command does (scripts/run.sh: migrate, collectstatic, the demo
objects, gunicorn with gunicorn.conf.py and the run command's environment) on a throwaway data
directory, then opens the demo packet's signing link in Debian's Chromium with the throttling
of Lighthouse's mobile profile, through the DevTools protocol: 4x CPU slowdown, 150 ms round
trips, 1.6 Mbps down, 750 kbps up. Each run is a new browser context (an empty cache); a second
load in the same context shows the cost with a warm cache.

Prints, per run and as the median: the time from the start of navigation to the first page of
the document drawn (``.sg-page.is-rendered``, the class the page sets when a page's picture is
on screen) and the bytes transferred. Target: the first page within 3 s.

    python bench/signing_page.py [--runs 5] [--cpu 4] [--kbps 1600] [--rtt 150]
"""

from __future__ import annotations

import argparse
import os
import secrets
import shlex
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
# Records when the first page's picture is on screen, in the page's own clock (milliseconds
# since the start of navigation).
FIRST_PAGE_PROBE = """
window.__firstPage = null;
new MutationObserver((_, observer) => {
  if (document.querySelector(".sg-page.is-rendered")) {
    window.__firstPage = performance.now();
    observer.disconnect();
  }
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
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
    signing link."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DATA_DIR": str(data_dir),
        "DATABASE_URL": f"sqlite:///{data_dir / 'bench.sqlite3'}",
        "PUBLIC_BASE_URL": base,
        "SECRET_KEY": secrets.token_urlsafe(40),
        "LOG_LEVEL": "WARNING",
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
    }
    manage(env, "migrate", "--noinput", "-v0")
    if "collectstatic" in (ROOT / "scripts" / "run.sh").read_text():
        manage(env, "collectstatic", "--noinput", "-v0")
    demo = {}
    for line in manage(env, "demo_setup").splitlines():
        name, _, value = line.partition("=")
        demo[name] = shlex.split(value)[0] if value else ""
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "-b", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2):
                break
        except OSError:
            if time.monotonic() > deadline:
                server.terminate()
                raise RuntimeError("the server did not start") from None
            time.sleep(0.2)
    return server, base, base + demo["DEMO_SIGNING_PATH"]


def throttled_load(context, url: str, args: argparse.Namespace) -> tuple[float, int]:
    """Load ``url`` in a new tab of ``context`` under throttling; (ms to the first page, bytes
    transferred)."""
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
    while (first := page.evaluate("() => window.__firstPage")) is None:
        if time.monotonic() > deadline:
            raise RuntimeError("the first page was not drawn within 2 minutes")
        time.sleep(0.05)
    page.wait_for_load_state("networkidle")
    page.close()
    return first, transferred[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cpu", type=float, default=4, help="CPU slowdown factor")
    parser.add_argument("--kbps", type=int, default=1600, help="download throughput, kbit/s")
    parser.add_argument("--rtt", type=int, default=150, help="added round-trip latency, ms")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    data_dir = Path(tempfile.mkdtemp(prefix="bench-signing-"))
    server, base, url = start_service(data_dir)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            cold, warm, sizes = [], [], []
            for run in range(args.runs):
                context = browser.new_context(
                    viewport={"width": 390, "height": 844},
                    device_scale_factor=2,
                    is_mobile=True,
                    has_touch=True,
                )
                context.add_init_script(FIRST_PAGE_PROBE)
                first, size = throttled_load(context, url, args)
                again, _ = throttled_load(context, url, args)
                context.close()
                cold.append(first)
                warm.append(again)
                sizes.append(size)
                print(
                    f"run {run + 1}: first page {first / 1000:.2f} s (empty cache), "
                    f"{again / 1000:.2f} s (warm cache); {size / 1e6:.2f} MB transferred"
                )
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    print(
        f"\nSigning page on a phone (390 px, {args.cpu:g}x CPU slowdown, {args.kbps} kbit/s, "
        f"{args.rtt} ms RTT), {base}:\n"
        f"  first page visible, empty cache: median {statistics.median(cold) / 1000:.2f} s "
        f"(min {min(cold) / 1000:.2f}, max {max(cold) / 1000:.2f}); target at most 3 s\n"
        f"  first page visible, warm cache:  median {statistics.median(warm) / 1000:.2f} s\n"
        f"  transferred, empty cache:        median {statistics.median(sizes) / 1e6:.2f} MB"
    )


if __name__ == "__main__":
    main()
