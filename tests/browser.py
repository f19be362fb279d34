"""The real browser of the page tests: Debian's Chromium, driven by Playwright, never downloaded."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
# Screenshots taken by the tests, to be looked at.
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


def _favicon(message: Any) -> bool:
    return message.location.get("url", "").endswith("/favicon.ico")


@contextmanager
def watched_tab(
    browser: Any,
    *,
    width: int = 1400,
    height: int = 900,
    clipboard_origin: str | None = None,
    expected: Callable[[Any], bool] = _favicon,
) -> Iterator[Any]:
    """A new tab of its own context that records every script error and console error (but
    those ``expected`` says a page may log): the test fails on any, after its own checks."""
    context = browser.new_context(viewport={"width": width, "height": height})
    if clipboard_origin is not None:
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=clipboard_origin)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on(
        "console",
        lambda msg: msg.type == "error" and not expected(msg) and errors.append(msg.text),
    )
    tab.set_default_timeout(15_000)
    try:
        yield tab
    finally:
        context.close()
    assert errors == []


def acme_key_status(base_url: str, raw_key: str) -> int:
    """The HTTP status of a currentUser query sent to the live server with ``raw_key``, a key
    shown by a page under test; when it works, it must be a key of the "acme" organization."""
    request = urllib.request.Request(
        base_url + "/graphql",
        data=json.dumps({"query": "{ currentUser { eid organizations { slug } } }"}).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": "Basic " + base64.b64encode(f"{raw_key}:".encode()).decode(),
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            body = json.loads(response.read())
            assert body["data"]["currentUser"]["organizations"] == [{"slug": "acme"}]
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def admin_log_in(tab: Any, live_server: Any, username: str, password: str) -> None:
    """Sign in through the admin's login page, as a person does, and land on the admin index."""
    tab.goto(f"{live_server.url}/admin/login/?next=/admin/")
    tab.fill("#id_username", username)
    tab.fill("#id_password", password)
    tab.click("input[type=submit]")
    tab.wait_for_url(f"{live_server.url}/admin/")
