"""Every page forbids scripts that are not the service's own files: ``script-src 'self'``, no
inline script (but the import map, by its SHA-256: core.importmap), no eval, no plug-in. Pages that may be framed keep their ``frame-ancestors``.
In Chromium, an inline script added to a page is blocked and reported."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.test import Client

from accounts.models import Organization, User
from core.importmap import import_map_csp_source
from templates_app.models import PdfTemplate
from tests.esign.conftest import CREATE, SIGN_URL, two_signer_packet
from workflows.demo import DEMO_WORKFLOW_SLUG, demo_workflow_create

ROOT = Path(__file__).resolve().parents[2]
SCRIPT_POLICY = (
    f"script-src 'self' {import_map_csp_source()}",
    "object-src 'none'",
    "base-uri 'self'",
)


def graphql(client: Client, query: str, variables: dict) -> dict:
    body = {"query": query, "variables": variables}
    answer = client.post("/graphql", data=json.dumps(body), content_type="application/json")
    return answer.json()["data"]


def directives(response) -> dict[str, str]:
    policy = response["Content-Security-Policy"]
    parts = [part.strip().split(None, 1) for part in policy.split(";") if part.strip()]
    return {part[0]: part[1] if len(part) > 1 else "" for part in parts}


def assert_scripts_locked(response) -> dict[str, str]:
    assert response["Content-Type"].startswith("text/html")
    found = directives(response)
    for directive in SCRIPT_POLICY:
        name, value = directive.split(None, 1)
        assert found.get(name) == value, (name, response["Content-Security-Policy"])
    return found


@pytest.mark.django_db
def test_every_kind_of_page_forbids_inline_and_foreign_scripts(
    owner: User,
    organization: Organization,
    demo_template: PdfTemplate,
    api_client: Client,
) -> None:
    demo_workflow_create(organization=organization, template=demo_template)
    member = Client()
    member.force_login(owner)
    anonymous = Client()
    packet = graphql(api_client, CREATE, two_signer_packet())["createEtchPacket"]
    signer = packet["documentGroup"]["signers"][0]["eid"]
    url = graphql(api_client, SIGN_URL, {"signerEid": signer, "clientUserId": "u1"})
    signing = url["generateEtchSignURL"].split("127.0.0.1:8000", 1)[1]

    pages = {
        "start": anonymous.get("/", HTTP_ACCEPT="text/html"),
        "verify": anonymous.get("/verify"),
        "api docs": anonymous.get("/api/docs"),
        "graphiql": member.get("/graphql", HTTP_ACCEPT="text/html"),
        "settings": member.get("/settings/acme/"),
        "admin": member.get("/admin/login/"),
        "webform": anonymous.get(f"/form/acme/{DEMO_WORKFLOW_SLUG}"),
        "signing": anonymous.get(signing),
        "expired link": anonymous.get(f"/api/etch/verify/{signer}?token=nope"),
    }
    for name, response in pages.items():
        expected = 403 if name == "expired link" else 200
        assert response.status_code == expected, (name, response.status_code)
        assert_scripts_locked(response)

    # Pages an integrator frames keep their own frame-ancestors beside the script policy.
    assert directives(pages["signing"])["frame-ancestors"] == "'self'"
    assert directives(pages["webform"])["frame-ancestors"] == "'self'"


@pytest.mark.django_db
def test_swagger_ui_starts_from_a_script_file_not_an_inline_one() -> None:
    page = Client().get("/api/docs").content.decode()
    sources = re.findall(r'<script src="([^"]+)"', page)
    assert any("script" in src for src in sources), sources
    assert "<script>" not in page
    script = Client().get("/api/docs", {"script": ""})
    assert script.status_code == 200
    assert "SwaggerUIBundle" in script.content.decode()


@pytest.mark.django_db
def test_api_answers_carry_no_page_policy(api_client: Client) -> None:
    response = Client().get("/healthz")

    assert "Content-Security-Policy" not in response


# A <script> that runs code where it stands (not a file, not JSON data), or an on... attribute.
INLINE_SCRIPT = re.compile(
    r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/(?:json|ld\+json)\")[^>]*>"
    r"|\son[a-z]+\s*=\s*[\"']",
    re.IGNORECASE,
)


def test_no_template_of_the_service_has_an_inline_script() -> None:
    templates = [
        path
        for path in ROOT.glob("*/templates/**/*.html")
        if ".venv" not in path.parts and "node_modules" not in path.parts
    ]
    assert len(templates) > 20
    offenders = {
        str(path.relative_to(ROOT)): match.group(0)
        for path in templates
        if (match := INLINE_SCRIPT.search(path.read_text()))
    }
    assert offenders == {}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_chromium_blocks_and_reports_an_inline_script_on_a_page(browser, live_server) -> None:
    """The control: with the page's own policy, an inline script injected into /verify does
    not run, and Chromium reports the violation (which every page test records as an error)."""
    from tests.browser import CSP_REPORTER

    context = browser.new_context()
    context.add_init_script(CSP_REPORTER)
    tab = context.new_page()
    messages: list[str] = []
    tab.on("console", lambda msg: messages.append(msg.text))

    def inject(route) -> None:
        response = route.fetch()
        body = response.text().replace(
            "</body>", "<script>window.__injected = true;</script></body>"
        )
        route.fulfill(response=response, body=body)

    tab.route("**/verify", inject)
    # Waited for, not given a fixed 200 ms: on a loaded machine the report came later.
    with tab.expect_console_message(
        lambda msg: msg.text.startswith("CSP violation: script-src-elem inline"), timeout=60_000
    ):
        tab.goto(live_server.url + "/verify")

    assert tab.evaluate("window.__injected") is None
    assert any(m.startswith("CSP violation: script-src-elem inline") for m in messages), messages
    context.close()


@pytest.mark.django_db
def test_the_only_inline_script_allowed_is_the_import_map_the_page_carries(
    organization: Organization, demo_template: PdfTemplate
) -> None:
    """The policy's one hash is the page's import map's (core.importmap): the map names every
    shared module, and nothing else inline can match it."""
    import base64
    import hashlib

    demo_workflow_create(organization=organization, template=demo_template)
    page = Client().get(f"/form/{organization.slug}/{DEMO_WORKFLOW_SLUG}")
    html = page.content.decode()
    (text,) = re.findall(r'<script type="importmap">(.*?)</script>', html, re.S)
    digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert directives(page)["script-src"] == f"'self' 'sha256-{digest}'"
    imports = json.loads(text)["imports"]
    assert {"#common/dom.js", "#common/page-box.js", "#embed/parent.js"} <= set(imports)
    assert all(url.startswith("/static/") for url in imports.values())
