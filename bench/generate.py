"""Benchmark of POST /api/v1/generate-pdf through the full HTTP stack, against plain WeasyPrint.

    python bench/generate.py [--runs 30]

Prints median (and p95) latency of: a one-page HTML document, a one-page Markdown document and a
10-page Markdown table, each as an HTTP request to gunicorn on loopback (URL routing, middleware,
API key authentication, rate limiting, parsing, validation, the render worker and its IPC);
the same one-page HTML rendered by plain WeasyPrint in this process, as the baseline; and the
ratio of the two. The cases run round-robin. For reference it also times plain WeasyPrint that
keeps its font configuration between documents, as the render workers do. A temporary SQLite
database is migrated and an organization with a production key (no watermark) is made for the
run. Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import atexit
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ONE_PAGE_HTML = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Invoice 2026-0042</title></head>
<body>
<header><h1>Invoice 2026-0042</h1><p class="meta">Issued 22 November 2026 &middot; Due in 30 days</p></header>
<section class="parties">
  <div><h2>From</h2><p>Acme Inc.<br>12 Rue de la Paix<br>75002 Paris</p></div>
  <div><h2>To</h2><p>Globex Corp.<br>500 Main Street<br>Springfield, OR 97477</p></div>
</section>
<table>
  <thead><tr><th>Description</th><th>Qty</th><th>Unit price</th><th>Amount</th></tr></thead>
  <tbody>
    <tr><td>Website design and build</td><td>1</td><td>$4,800.00</td><td>$4,800.00</td></tr>
    <tr><td>Hosting, 12 months</td><td>12</td><td>$40.00</td><td>$480.00</td></tr>
    <tr><td>Content migration</td><td>30</td><td>$25.00</td><td>$750.00</td></tr>
    <tr><td>Training session (half day)</td><td>2</td><td>$350.00</td><td>$700.00</td></tr>
    <tr><td>Support retainer</td><td>3</td><td>$200.00</td><td>$600.00</td></tr>
  </tbody>
  <tfoot><tr><td colspan="3">Total</td><td>$7,330.00</td></tr></tfoot>
</table>
<p>Payment by bank transfer to IBAN FR76 3000 6000 0112 3456 7890 189. Please quote the invoice
number with your payment. Late payments incur interest at three times the legal rate and a fixed
recovery fee of 40 euros. Thank you for your business.</p>
<p class="small">Acme Inc. &middot; SAS au capital de 10 000 &euro; &middot; RCS Paris 123 456 789</p>
</body></html>"""

ONE_PAGE_CSS = """
@page { size: A4; margin: 2cm; @bottom-right { content: "Page " counter(page) " of " counter(pages); font-size: 9pt } }
body { font-family: "Noto Sans", sans-serif; font-size: 11pt; color: #222; }
h1 { font-size: 22pt; margin: 0; color: #1e3a8a; }
h2 { font-size: 11pt; text-transform: uppercase; color: #555; margin: 0 0 4pt; }
.meta { color: #666; margin-top: 2pt; }
.parties { display: flex; gap: 2cm; margin: 1cm 0; }
table { width: 100%; border-collapse: collapse; margin: 0.5cm 0; }
th, td { padding: 6pt 8pt; border-bottom: 1px solid #ddd; text-align: left; }
td:nth-child(n+2), th:nth-child(n+2) { text-align: right; }
tfoot td { font-weight: bold; border-top: 2px solid #1e3a8a; }
.small { font-size: 8pt; color: #888; }
"""

ONE_PAGE_MARKDOWN = [
    {"heading": "Quarterly report"},
    {
        "label": "Summary",
        "content": (
            "Revenue grew **12%** over the quarter, driven by *new subscriptions* and lower churn. "
            "See the [dashboard](https://example.com/dashboard) for the daily figures.\n\n"
            "- Subscriptions: 1,204 new\n- Churn: 2.1% (down from 2.9%)\n- Support tickets: 318\n\n"
            "> Next quarter we focus on onboarding.\n"
        ),
    },
    {
        "label": "Regions",
        "table": {
            "rows": [
                ["Region", "Revenue", "Growth"],
                ["Europe", "$1.2M", "+9%"],
                ["North America", "$2.4M", "+14%"],
                ["Asia-Pacific", "$0.8M", "+17%"],
            ],
            "rowGridlines": True,
            "columnOptions": [{}, {"align": "right"}, {"align": "right"}],
        },
    },
    {
        "label": "Notes",
        "content": "Figures are unaudited.\n\n| Item | Value |\n|---|---:|\n| FX rate | 1.08 |\n",
    },
]

TABLE_ROWS = 245  # lays out to 10 letter pages with the default margins and font size


def ten_page_table() -> list[dict[str, object]]:
    rows = [["#", "Customer", "City", "Plan", "Amount"]]
    rows += [
        [str(i), f"Customer number {i}", ("Paris", "Berlin", "Osaka", "Lima")[i % 4],
         ("Basic", "Pro", "Team")[i % 3], f"${(i * 37) % 1000}.00"]
        for i in range(1, TABLE_ROWS + 1)
    ]  # fmt: skip
    return [{"heading": "Customers"}, {"table": {"rows": rows, "rowGridlines": True}}]


def timed(cases: dict[str, Callable[[], object]], runs: int, warmup: int) -> dict[str, list[float]]:
    """Run the cases round-robin, so load from elsewhere on the machine hits them all alike."""
    for _ in range(warmup):
        for call in cases.values():
            call()
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, call in cases.items():
            started = time.perf_counter()
            call()
            samples[name].append(time.perf_counter() - started)
    return samples


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="timed requests per case")
    parser.add_argument("--warmup", type=int, default=5, help="untimed requests per case first")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    from bench._server import Server, pdf_api_headers, prepare_environment

    prepare_environment()
    import io

    import pypdf
    import weasyprint
    from weasyprint.text.fonts import FontConfiguration

    headers = pdf_api_headers()
    server = Server()
    atexit.register(server.stop)

    def request(payload: dict[str, object]) -> Callable[[], bytes]:
        body = json.dumps(payload).encode()

        def call() -> bytes:
            status, content = server.request("POST", "/api/v1/generate-pdf", body, headers)
            if status != 200:
                raise SystemExit(f"request failed: {status} {content[:300]!r}")
            return content

        return call

    html_payload = {"type": "html", "data": {"html": ONE_PAGE_HTML, "css": ONE_PAGE_CSS}}
    cases = {
        "one-page HTML (HTTP)": request(html_payload),
        "one-page Markdown (HTTP)": request({"data": ONE_PAGE_MARKDOWN, "title": "Report"}),
        "10-page table (HTTP)": request({"data": ten_page_table(), "title": "Customers"}),
    }

    def plain() -> bytes:
        return weasyprint.HTML(string=ONE_PAGE_HTML).write_pdf(
            stylesheets=[weasyprint.CSS(string=ONE_PAGE_CSS)]
        )

    # For reference only: plain WeasyPrint that keeps one font configuration across documents,
    # as the render workers do (a caller rendering one document at a time has none to keep).
    font_config = FontConfiguration()

    def plain_warm() -> bytes:
        return weasyprint.HTML(string=ONE_PAGE_HTML).write_pdf(
            stylesheets=[weasyprint.CSS(string=ONE_PAGE_CSS, font_config=font_config)],
            font_config=font_config,
        )

    pages = {name: len(pypdf.PdfReader(io.BytesIO(call())).pages) for name, call in cases.items()}
    baseline, reference = "plain WeasyPrint, same HTML", "  (plain, font config kept)"
    cases[baseline] = plain
    cases[reference] = plain_warm
    pages[baseline] = len(pypdf.PdfReader(io.BytesIO(plain())).pages)
    pages[reference] = len(pypdf.PdfReader(io.BytesIO(plain_warm())).pages)

    results = timed(cases, args.runs, args.warmup)

    print(f"generate-pdf benchmark: {args.runs} timed runs per case after {args.warmup} warm-up")
    print(f"{'case':34} {'pages':>5} {'median ms':>10} {'p95 ms':>8}")
    for name, samples in results.items():
        print(
            f"{name:34} {pages[name]:>5} {statistics.median(samples) * 1000:>10.1f}"
            f" {p95(samples) * 1000:>8.1f}"
        )
    ours = statistics.median(results["one-page HTML (HTTP)"])
    plain_median = statistics.median(results[baseline])
    warm_median = statistics.median(results[reference])
    print(
        f"one-page HTML: ours / plain WeasyPrint = {ours / plain_median:.3f}"
        f" (overhead {(ours / plain_median - 1) * 100:+.1f} %; target <= +10 %)"
    )
    print(
        f"  for reference, ours / plain with its font config kept = {ours / warm_median:.3f}"
        f" ({ours * 1000 - warm_median * 1000:+.1f} ms: HTTP stack, checks, IPC to the worker)"
    )
    print(
        f"peak memory: server worker {server.peak_rss_mb():.0f} MB RSS (render workers are"
        " separate processes)"
    )


if __name__ == "__main__":
    main()
