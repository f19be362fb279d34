"""Benchmark of the fill endpoint and engine. Run from the repository root:

    .venv/bin/python bench/fill.py

Prints, in one run: median and p95 latency of a one-page, 30-field template through the full
HTTP stack (gunicorn on loopback, authentication, rate limiting, PostgreSQL or SQLite) and of the
engine alone; a 100-row overflow across pages; a 100-element whole-PDF repeat; peak memory;
and pypdf's own AcroForm fill of the same form with the same data as a baseline. Two real
forms from ../shared/fixtures show today's scale: the 13-page CRA B300 with every text field
filled (pypdf's own fill of it as the baseline), and 100 copies of the 6-page IRS W-9.

Then the output writers compared in one run (cases round-robin): the W-9 with its first 15
fields filled as the form orders them (8 texts, 7 checked boxes) through HTTP on two servers, one writing the filled PDF as an incremental update of the template (the default) and
one writing it whole (FILL_INCREMENTAL_UPDATE=false), the engine alone both ways, pypdf's own
AcroForm fill of the original W-9 with the same 15 values (the baseline) and qpdf alone opening
and rewriting the original W-9 (the floor of any whole-file writer). Each is printed with its
ratio to the baseline (goal: HTTP with the update at most 0.20). ``--writers`` runs only this
comparison.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import functools
import io
import json
import logging
import os
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._server import Server, prepare_environment, round_robin, summary, timings  # noqa: E402

FIELDS = 30
W9_VALUES = 15
FIXTURES = Path(
    os.environ.get("SHARED_FIXTURES_DIR", Path(__file__).resolve().parents[2] / "shared/fixtures")
)
TEXT_TYPES = ("shortText", "longText")


def thirty_field_form() -> bytes:
    """A one-page AcroForm with 30 labelled text fields (reportlab), the baseline's input."""
    from reportlab.pdfgen.canvas import Canvas

    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792))
    for i in range(FIELDS):
        column, row = i % 2, i // 2
        x, y = 50 + column * 280, 740 - row * 45
        canvas.setFont("Helvetica", 8)
        canvas.drawString(x, y + 19, f"Field {i + 1}")
        canvas.acroForm.textfield(
            name=f"field{i}", x=x, y=y, width=250, height=16, fontSize=10, borderWidth=0.5
        )
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def w9_values(spec) -> tuple[dict[str, object], dict[str, str]]:
    """The W-9's first 15 fields as the form orders them: a text or a checked box each, keyed
    by alias (for the fill endpoint) and by the field's qualified name with the value pypdf
    sets (the text, or the box's on state) for the baseline."""
    from pypdf import PdfReader

    fields = PdfReader(FIXTURES / "pdfs/irs-fw9-2018.pdf").get_fields() or {}
    on_states = {
        name: next(state for state in field.get("/_States_", []) if state != "/Off")
        for name, field in fields.items()
        if field.get("/FT") == "/Btn"
    }
    by_alias: dict[str, object] = {}
    by_name: dict[str, str] = {}
    for index, field in enumerate(spec.fields[:W9_VALUES]):
        if field.type == "checkbox":
            by_alias[field.alias] = True
            by_name[field.name] = on_states[field.name]
        else:
            by_alias[field.alias] = by_name[field.name] = f"Value {index + 1}"
    return by_alias, by_name


def pypdf_fill(pdf: bytes, values: dict[str, str], *, every_page: bool = False) -> bytes:
    """pypdf's own AcroForm fill, the baseline the engine is compared with: ``values`` set in
    the first page's fields (every page's with ``every_page``), no appearances made."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    for page in list(writer.pages) if every_page else [writer.pages[0]]:
        writer.update_page_form_field_values(page, values, auto_regenerate=False)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def compare_writers(w9, key_auth: dict[str, str]) -> None:
    """The W-9 with 15 values: the update and the whole-file writer against pypdf's own fill."""
    from pypdf import PdfReader

    from core.engine.pdf import open_pdf, save_pdf
    from fill.engine import fill_pdf, parse_fill_request
    from fill.services import fill_context
    from templates_app.services import version_pdf, version_spec, working_version

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its notes on pages without fields
    original = (FIXTURES / "pdfs/irs-fw9-2018.pdf").read_bytes()
    version = working_version(w9)
    base, spec = version_pdf(version), version_spec(version)
    by_alias, by_name = w9_values(spec)
    body = json.dumps({"data": by_alias}).encode()
    request = parse_fill_request({"data": by_alias}, max_documents=1)
    context = fill_context()
    rewrite_context = dataclasses.replace(context, incremental=False)

    filled = PdfReader(io.BytesIO(pypdf_fill(original, by_name))).get_fields() or {}
    missing = [n for n, v in by_name.items() if filled.get(n, {}).get("/V") != v]
    assert not missing, f"pypdf did not fill {missing}"

    update_server = Server()
    os.environ["FILL_INCREMENTAL_UPDATE"] = "false"
    try:
        rewrite_server = Server()
    finally:
        del os.environ["FILL_INCREMENTAL_UPDATE"]
    path = f"/api/v1/fill/{w9.eid}.pdf"

    def post(server: Server) -> bytes:
        status, content = server.request("POST", path, body, key_auth)
        assert status == 200 and content.startswith(b"%PDF"), (status, content[:200])
        return content

    try:
        assert post(update_server).startswith(base)  # the servers write what they claim
        assert not post(rewrite_server).startswith(base)
        cases = {
            "W-9, 15 values, HTTP, incremental update": lambda: post(update_server),
            "W-9, 15 values, HTTP, whole-file rewrite": lambda: post(rewrite_server),
            "W-9, 15 values, engine, incremental update": lambda: fill_pdf(
                template_pdf=base, spec=spec, request=request, context=context
            ),
            "W-9, 15 values, engine, whole-file rewrite": lambda: fill_pdf(
                template_pdf=base, spec=spec, request=request, context=rewrite_context
            ),
            "qpdf alone: open and rewrite the W-9 (floor)": lambda: save_pdf(open_pdf(original)),
            "pypdf AcroForm fill of the W-9, 15 values (baseline)": functools.partial(
                pypdf_fill, original, by_name
            ),
        }
        samples = round_robin(cases, repeat=60, warmup=5)
    finally:
        update_server.stop()
        rewrite_server.stop()
    baseline = summary(samples["pypdf AcroForm fill of the W-9, 15 values (baseline)"])[0]
    print(f"{'writers compared (round-robin)':58} {'median ms':>10} {'p95 ms':>9} {'/ pypdf':>8}")
    for label, values in samples.items():
        median, p95 = summary(values)
        print(f"{label:58} {median:10.1f} {p95:9.1f} {median / baseline:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", action="store_true", help="only the W-9 writers comparison")
    args = parser.parse_args()
    prepare_environment()
    from pypdf import PdfReader

    from accounts.services import api_key_create, organization_create
    from fill.engine import fill_pdf, parse_fill_request
    from fill.services import fill_context
    from templates_app.engine.demo import build_demo_template
    from templates_app.services import (
        template_create_from_pdf,
        template_create_with_spec,
        version_pdf,
        version_spec,
        working_version,
    )

    form = thirty_field_form()
    organization = organization_create(slug="bench", name="Bench")
    _, key = api_key_create(organization=organization, kind="production")
    form_template = template_create_from_pdf(
        organization=organization, title="30 fields", pdf=form, publish=True
    )
    demo_pdf, demo_spec = build_demo_template()
    demo = template_create_with_spec(
        organization=organization, title="Demo", pdf=demo_pdf, spec=demo_spec, publish=True
    )
    cra_pdf = (FIXTURES / "pdfs/ca-cra-b300-cannabis-duty.pdf").read_bytes()
    cra = template_create_from_pdf(
        organization=organization, title="CRA", pdf=cra_pdf, publish=True
    )
    cra_spec = version_spec(working_version(cra))
    cra_values = {
        f.alias: f"Value {i}" for i, f in enumerate(cra_spec.fields) if f.type in TEXT_TYPES
    }
    w9 = template_create_from_pdf(
        organization=organization,
        title="W-9",
        pdf=(FIXTURES / "pdfs/irs-fw9-2018.pdf").read_bytes(),
        publish=True,
    )
    w9_name = next(
        f.alias for f in version_spec(working_version(w9)).fields if f.type in TEXT_TYPES
    )
    values = {f"field{i}": f"Value number {i + 1} for this form" for i in range(FIELDS)}
    auth = {
        "Authorization": "Basic " + base64.b64encode(f"{key}:".encode()).decode(),
        "Content-Type": "application/json",
    }
    if args.writers:
        compare_writers(w9, auth)
        return

    one_page = json.dumps({"data": values}).encode()
    overflow = json.dumps(
        {"data": {"items": [f"Row {i}" for i in range(100)], "prices": list(range(100))}}
    ).encode()
    repeat = json.dumps(
        {
            "data": [
                {
                    "name": {"firstName": f"P{i}", "lastName": "X"},
                    "email": f"p{i}@example.com",
                    "amount": i,
                }
                for i in range(100)
            ]
        }
    ).encode()
    cra_body = json.dumps({"data": cra_values}).encode()
    w9_body = json.dumps({"data": [{w9_name: f"Person {i}"} for i in range(100)]}).encode()

    server = Server()
    try:

        def post(template, body: bytes) -> None:
            status, content = server.request("POST", f"/api/v1/fill/{template.eid}.pdf", body, auth)
            assert status == 200 and content.startswith(b"%PDF"), (status, content[:200])

        http_one = summary(timings(lambda: post(form_template, one_page), repeat=200))
        http_overflow = summary(timings(lambda: post(demo, overflow), repeat=20))
        http_repeat = summary(timings(lambda: post(demo, repeat), repeat=10, warmup=1))
        http_cra = summary(timings(lambda: post(cra, cra_body), repeat=20))
        http_w9 = summary(timings(lambda: post(w9, w9_body), repeat=20))
        server_peak = server.peak_rss_mb()
    finally:
        server.stop()

    version = working_version(form_template)
    base, spec, context = version_pdf(version), version_spec(version), fill_context()
    request = parse_fill_request({"data": values}, max_documents=10)
    engine_one = summary(
        timings(
            lambda: fill_pdf(template_pdf=base, spec=spec, request=request, context=context),
            repeat=200,
        )
    )
    demo_version = working_version(demo)
    demo_base, demo_spec_json = version_pdf(demo_version), version_spec(demo_version)
    repeat_request = parse_fill_request(json.loads(repeat), max_documents=1000)
    engine_repeat = summary(
        timings(
            lambda: fill_pdf(
                template_pdf=demo_base, spec=demo_spec_json, request=repeat_request, context=context
            ),
            repeat=5,
            warmup=1,
        )
    )
    tracemalloc.start()  # a separate run: tracing slows everything down several times
    repeat_pdf = fill_pdf(
        template_pdf=demo_base, spec=demo_spec_json, request=repeat_request, context=context
    )
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    overflow_pdf = fill_pdf(
        template_pdf=demo_base,
        spec=demo_spec_json,
        request=parse_fill_request(json.loads(overflow), max_documents=1),
        context=context,
    )
    pages = {
        name: len(PdfReader(io.BytesIO(pdf)).pages)
        for name, pdf in (("overflow", overflow_pdf), ("repeat", repeat_pdf))
    }

    baseline = summary(timings(functools.partial(pypdf_fill, form, values), repeat=100))
    # Every page: the imported aliases are the fields' qualified names, on any page.
    cra_fill = functools.partial(pypdf_fill, cra_pdf, cra_values, every_page=True)
    baseline_cra = summary(timings(cra_fill, repeat=3, warmup=1))

    rows = [
        ("one page, 30 fields, HTTP (gunicorn, loopback)", http_one),
        ("one page, 30 fields, engine only", engine_one),
        ("pypdf AcroForm fill, same form and data (baseline)", baseline),
        (f"100-row overflow ({pages['overflow']} pages), HTTP", http_overflow),
        (f"100-element whole-PDF repeat ({pages['repeat']} pages), HTTP", http_repeat),
        ("100-element whole-PDF repeat, engine only", engine_repeat),
        (f"CRA B300, 13 pages, {len(cra_values)} text values, HTTP", http_cra),
        ("pypdf AcroForm fill of the CRA B300 (baseline)", baseline_cra),
        ("IRS W-9 x 100 (600 pages), HTTP", http_w9),
    ]
    print(f"{'case':58} {'median ms':>10} {'p95 ms':>9}")
    for label, (median, p95) in rows:
        print(f"{label:58} {median:10.1f} {p95:9.1f}")
    print(f"engine speed-up over the pypdf baseline (median): {baseline[0] / engine_one[0]:.1f}x")
    print(
        f"peak memory: server worker {server_peak:.0f} MB RSS; engine allocations during the 100-element repeat {traced_peak / 1e6:.0f} MB"
    )
    print()
    compare_writers(w9, auth)


if __name__ == "__main__":
    main()
