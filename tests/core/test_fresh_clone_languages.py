"""A check from outside (issue 35): a clean copy of the committed tree, started the way
docs/configuration.md ("Running in production") and docs/deployment.md say (migrate,
collectstatic, gunicorn; no bootstrap, no compile step), serves a signer's page in every language
of settings.LANGUAGES: at least 90 % of the English page's words replaced, and dir="rtl" for
Arabic and Hebrew (dir="ltr" for the others). Before the catalogues were committed, such a copy served 4 % of a Spanish
page in Spanish."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils.translation import get_language_info

from tests.conftest import basic_auth
from tests.esign.conftest import CREATE, SIGN_URL, token_of, two_signer_packet
from tests.page_text import read_segments
from tests.processes import ROOT, free_port, gunicorn, production_environment, run_setup

pytestmark = pytest.mark.slow

SETUP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
call_command("collectstatic", interactive=False, verbosity=0)
from accounts.services import api_key_create, organization_create
organization = organization_create(slug="acme", name="Acme")
print(api_key_create(organization=organization, kind="production")[1])
"""


@dataclass
class Server:
    port: int
    key: str

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            data = json.dumps(body).encode() if body is not None else None
            connection.request(method, path, body=data, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read().decode()
        finally:
            connection.close()

    def graphql(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        status, body = self.request(
            "POST",
            "/graphql",
            {"query": query, "variables": variables},
            {"Authorization": basic_auth(self.key), "Content-Type": "application/json"},
        )
        assert status == 200, body
        result = json.loads(body)
        assert "errors" not in result, result
        return result["data"]


def clean_copy(destination: Path) -> Path:
    """What a clone of the repository holds: the committed tree at HEAD, nothing built in it."""
    archive = destination / "head.tar"
    subprocess.run(["git", "archive", "-o", str(archive), "HEAD"], cwd=ROOT, check=True)
    tree = destination / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("fresh-clone")
    tree = clean_copy(base)
    environment = production_environment(base / "data", WEB_CONCURRENCY="1")
    key = run_setup(SETUP, cwd=tree, environment=environment, timeout=300).split()[-1]
    port = free_port()
    with gunicorn(cwd=tree, environment=environment, port=port, stdout=base / "server.log"):
        yield Server(port, key)


# What the page shows of the packet and the signer (the sender's words, not the service's), and
# the data its script reads (ids, kinds, paths): no language translates those.
SENDERS_WORDS = ("Services agreement", "Ada Lovelace")
DATA = re.compile(r"^(?:[a-z][\w.:/-]*|[\w.:/-]*[\d/][\w.:/-]*)$")


# The language menu names each language in itself, on every page alike.
LANGUAGE_NAMES = {get_language_info(code)["name_local"] for code, _name in settings.LANGUAGES}


def english_words(segments: list[str]) -> set[str]:
    return {
        segment
        for segment in segments
        if not any(words in segment for words in SENDERS_WORDS)
        and not DATA.match(segment)
        and segment not in LANGUAGE_NAMES
    }


@pytest.fixture(scope="module")
def signing_page(server: Server) -> Any:
    packet = server.graphql(CREATE, two_signer_packet())["createEtchPacket"]
    signer = packet["documentGroup"]["signers"][0]["eid"]
    url = server.graphql(SIGN_URL, {"signerEid": signer, "clientUserId": "user-1"})
    path = f"/api/etch/verify/{signer}?token={token_of(url['generateEtchSignURL'])}"

    def page(language: str) -> str:
        status, html = server.request("GET", path, headers={"Accept-Language": language})
        assert status == 200, html[:500]
        return html

    return page


LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_signing_page_of_a_fresh_clone_is_in_each_language(signing_page, language) -> None:
    english = english_words(read_segments(signing_page("en")))
    html = signing_page(language)
    left_in_english = sorted(english & set(read_segments(html)))

    replaced = 1 - len(left_in_english) / len(english)

    assert len(english) > 80
    assert re.search(rf'<html lang="{language}"', html, re.IGNORECASE), html[:300]
    assert replaced >= 0.9, (language, f"{replaced:.0%}", left_in_english)
    direction = "rtl" if language in ("ar", "he") else "ltr"
    assert f'dir="{direction}"' in html[:500]
