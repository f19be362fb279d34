"""The real browser of the page tests: Debian's Chromium, driven by Playwright, never downloaded."""

from __future__ import annotations

import base64
import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
# The sizes the signing pages are looked at in: a desktop, and a phone as Chromium emulates one.
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
PHONE_OPTIONS = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
SIZES = (("desktop", DESKTOP, {}), ("phone", PHONE, PHONE_OPTIONS))
# The same two, the phone a touch screen at the desktop's pixel density.
TOUCH_SIZES = (("desktop", DESKTOP, {}), ("phone", PHONE, {"is_mobile": True, "has_touch": True}))
# Screenshots taken by the tests, to be looked at.
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


# Logs every Content-Security-Policy violation of a page as a console error ("CSP violation:
# script-src-elem inline"), which the tabs below record; Chromium's own message may not say it.
CSP_REPORTER = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI || "inline"}`);
});
"""


def _favicon(message: Any) -> bool:
    return message.location.get("url", "").endswith("/favicon.ico")


def none_expected(message: Any) -> bool:
    """For a tab where every console error fails the test, the favicon's included."""
    return False


class Tab:
    """A browser tab of its own context that records every script error and console error of
    every frame (but those ``expected`` says a page may log); ``close`` fails on any."""

    def __init__(
        self,
        browser: Any,
        viewport: dict[str, int],
        *,
        expected: Callable[[Any], bool] = _favicon,
        clipboard_origin: str | None = None,
        **context_options: Any,
    ) -> None:
        self.context = browser.new_context(viewport=viewport, **context_options)
        if clipboard_origin is not None:
            self.context.grant_permissions(
                ["clipboard-read", "clipboard-write"], origin=clipboard_origin
            )
        # A script the Content-Security-Policy blocks is an error of the page, named as such.
        self.context.add_init_script(CSP_REPORTER)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on(
            "console",
            lambda msg: msg.type == "error" and not expected(msg) and self.errors.append(msg.text),
        )

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], self.errors


@contextmanager
def watched_tab(
    browser: Any,
    *,
    width: int = 1400,
    height: int = 900,
    clipboard_origin: str | None = None,
    expected: Callable[[Any], bool] = _favicon,
) -> Iterator[Any]:
    """The page of a ``Tab``; the test fails on a recorded error after its own checks."""
    tab = Tab(
        browser,
        {"width": width, "height": height},
        expected=expected,
        clipboard_origin=clipboard_origin,
    )
    try:
        yield tab.page
    except BaseException:
        tab.context.close()
        raise
    tab.close()


# An integrator's app on another origin: /embed.html?src=<url> frames the URL in #app-frame and
# records every message the frame posts (window.__events); /done is a page to come back to.
EMBED_PAGE = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Integrator app</title><link rel="icon" href="data:,">
<style>html, body { margin: 0; height: 100%; } iframe { display: block; width: 100%;
height: 100%; border: 0; }</style></head>
<body><script>
window.__events = [];
window.addEventListener("message", (event) => {
  window.__events.push({ origin: event.origin, data: event.data });
});
const frame = document.createElement("iframe");
frame.id = "app-frame";
frame.title = "Embedded page";
frame.src = new URLSearchParams(location.search).get("src");
document.body.append(frame);
</script></body></html>
"""
DONE_PAGE = b"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Back</title></head>
<body><h1>Back in the app</h1></body></html>"""


class AppPages(BaseHTTPRequestHandler):
    """The pages of an app on loopback (an integrator's that frames ours): ``page(path, query)``
    gives (body, content type), or None for a 404; nothing is logged."""

    def page(self, path: str, query: str) -> tuple[bytes, str] | None:
        raise NotImplementedError

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        found = self.page(parts.path, parts.query)
        body, kind = found or (b"not found", "text/html; charset=utf-8")
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", kind)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def file_below(root: Path, relative: str) -> bytes | None:
    """The bytes of ``root/relative`` if that is a file inside ``root`` (no way out by ``..``)."""
    file = (root / relative).resolve()
    return file.read_bytes() if file.is_relative_to(root) and file.is_file() else None


@contextmanager
def serve_app(pages: type[AppPages]) -> Iterator[str]:
    """Serve ``pages``; yields the origin, http://127.0.0.1:<port>, never the live server's."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def app_fixture(pages: type[AppPages]) -> Any:
    """A module-scoped fixture that serves ``pages`` and gives their origin."""

    def app() -> Iterator[str]:
        with serve_app(pages) as origin:
            yield origin

    return pytest.fixture(scope="module", name="app")(app)


class _IntegratorApp(AppPages):
    def page(self, path: str, query: str) -> tuple[bytes, str] | None:
        body = {"/embed.html": EMBED_PAGE, "/done": DONE_PAGE}.get(path)
        return (body, "text/html; charset=utf-8") if body else None


def integrator_app() -> contextlib.AbstractContextManager[str]:
    """Serve the integrator's app; yields its origin."""
    return serve_app(_IntegratorApp)


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


def settings_log_in(tab: Any, live_server: Any, username: str, password: str) -> None:
    """Sign in through the accounts' login page, as a person does, and land on acme's settings."""
    tab.goto(f"{live_server.url}/accounts/login/?next=/settings/acme/")
    tab.get_by_label("User name").fill(username)
    tab.get_by_label("Password").fill(password)
    tab.get_by_role("button", name="Log in").click()
    tab.wait_for_url(f"{live_server.url}/settings/acme/")
