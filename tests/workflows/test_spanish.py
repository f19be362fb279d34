"""The webform pages in Spanish (issue 28, item 5, the webform half): chosen by the browser's
Accept-Language, every word a person reads (the pages, the rules' messages, what the script
writes, the regions' names) comes from workflows/locale/es; the API keeps answering in English;
and the catalogue has no entry left untranslated or fuzzy."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from django.test import Client

from tests.conftest import basic_auth
from tests.workflows.conftest import FORGE_SUBMIT
from tests.workflows.order_workflow import order_workflow
from workflows.engine.messages import MESSAGES
from workflows.engine.phones import REGION_NAMES
from workflows.models import Submission
from workflows.submissions.links import continue_token

CATALOGUE = Path(__file__).resolve().parents[2] / "workflows/locale/es/LC_MESSAGES/django.po"
START = "/form/acme/order"


def spanish() -> Client:
    return Client(HTTP_ACCEPT_LANGUAGE="es-MX,es;q=0.9,en;q=0.5")


def script_data(html: str, element_id: str) -> Any:
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html)
    assert match, element_id
    return json.loads(match.group(1))


def test_the_first_page_is_in_spanish(organization, demo_template) -> None:
    order_workflow(organization, demo_template)

    html = spanish().get(START).content.decode()

    assert '<html lang="es" dir="ltr">' in html
    assert "Paso 1 de 2: <bdi>You</bdi>" in html  # the staff's own titles stay as written
    assert ">Nombre</label>" in html
    assert ">Apellido</label>" in html
    assert "indica un campo obligatorio." in html
    assert 'id="wf-next">Siguiente</button>' in html
    rules = script_data(html, "wf-rules")
    assert rules["messages"]["required"] == "Este campo es obligatorio."
    assert rules["messages"]["groupMin"] == "Registros necesarios: al menos {min}."
    assert rules["phoneRegions"]["MX"]["name"] == "México"
    strings = script_data(html, "wf-strings")
    assert strings["oneProblem"] == "Hay un problema"
    assert strings["finish"] == "Terminar"


def test_a_refused_page_says_why_in_spanish(organization, demo_template) -> None:
    workflow = order_workflow(organization, demo_template)
    client = spanish()
    forge = workflow.webforms.get().eid

    refused = client.post(START, {"forge": forge, "page": "0", "action": "next"})

    assert refused.status_code == 400
    html = refused.content.decode()
    assert "Hay un problema" in html
    assert "<bdi>Full name</bdi>: Este campo es obligatorio." in html
    assert not Submission.objects.exists()


def test_the_group_page_and_the_end_in_spanish(organization, demo_template) -> None:
    workflow = order_workflow(organization, demo_template)
    client = spanish()
    forge = workflow.webforms.get().eid
    names = {"name.firstName": "Ada", "name.lastName": "Lovelace", "deliver": "on"}
    items = client.post(START, {"forge": forge, "page": "0", "action": "next", **names})
    submission = Submission.objects.get()
    resume = f"{START}/{submission.eid}?token={continue_token(submission)}"
    html = items.content.decode()
    assert "Registro 1" in html
    assert "Agregar un registro" in html
    assert "De 1 a 8 registros." in html

    bad = client.post(
        resume,
        {"forge": forge, "page": "1", "action": "next", "items.entries": "1",
         "items.0.description": "Lámpara", "items.0.price": "barato"},
    )  # fmt: skip
    assert (
        "<bdi>\u2068Items\u2069, registro 1: \u2068Price\u2069</bdi>: "
        "Escriba un número, como 1234.56."
    ) in bad.content.decode()
    client.post(
        resume,
        {"forge": forge, "page": "1", "action": "next", "items.entries": "1",
         "items.0.description": "Lámpara", "items.0.price": "12.50"},
    )  # fmt: skip
    done = client.post(
        resume,
        {"forge": forge, "page": "2", "action": "next", "address.street1": "Reforma 222",
         "address.city": "Laredo", "address.state": "TX", "address.zip": "78040"},
    )  # fmt: skip

    html = done.content.decode()
    assert "Gracias" in html
    assert "Sus respuestas" in html
    assert "Descargar todo (zip)" in html
    assert "<dt><bdi>Deliver it to my address</bdi></dt><dd><bdi>Sí</bdi></dd>" in html


def test_the_api_answers_in_english_whatever_the_language(
    organization, demo_template, api_key, graphql
) -> None:
    workflow = order_workflow(organization, demo_template)
    client = Client(HTTP_AUTHORIZATION=basic_auth(api_key), HTTP_ACCEPT_LANGUAGE="es-MX")

    body = graphql(
        FORGE_SUBMIT,
        client,
        forgeEid=workflow.webforms.get().eid,
        payload={"items": [{"price": "barato"}]},
    )

    [field] = body["errors"][0]["extensions"]["fields"]
    assert field == {"property": "payload.items.0.price", "message": MESSAGES["number"]}


def catalogue() -> list[tuple[str, str]]:
    """(msgid, msgstr) of each entry, their continued lines joined."""
    entries = []
    for block in CATALOGUE.read_text(encoding="utf-8").split("\n\n"):
        parts: dict[str, str] = {}
        key = ""
        for line in block.splitlines():
            if line.startswith(("msgid ", "msgstr ")):
                key, _, line = line.partition(" ")
            if line.startswith('"') and key:
                parts[key] = parts.get(key, "") + json.loads(line)
        if "msgid" in parts:
            entries.append((parts["msgid"], parts.get("msgstr", "")))
    return entries


def test_every_entry_of_the_catalogue_is_translated() -> None:
    text = CATALOGUE.read_text(encoding="utf-8")
    entries = catalogue()

    assert "#, fuzzy" not in text
    assert len(entries) > 100
    assert [msgid for msgid, msgstr in entries if msgid and not msgstr] == []
    translated = dict(entries)
    assert all(message in translated for message in MESSAGES.values())
    assert all(name in translated for name in REGION_NAMES.values())


def test_no_documents_yet_says_why_in_spanish(organization, demo_template) -> None:
    workflow = order_workflow(organization, demo_template)
    forge = workflow.webforms.get().eid
    names = {"name.firstName": "Ada", "name.lastName": "Lovelace", "deliver": "on"}
    spanish().post(START, {"forge": forge, "page": "0", "action": "next", **names})
    submission = Submission.objects.get()
    base = f"{START}/{submission.eid}/documents.zip"

    early = spanish().get(f"{base}?token={continue_token(submission)}")
    assert early.status_code == 409
    html = early.content.decode()
    assert "No hay documentos" in html
    assert "cuando todas las páginas estén completas" in html
    assert "once it is completed" not in html  # the API's English message stays the API's

    bad_link = spanish().get(f"{base}?token=nope").content.decode()
    assert "Este enlace no es válido: abra el enlace completo que recibió." in bad_link
