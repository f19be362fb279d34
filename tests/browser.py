"""The real browser of the page tests: Debian's Chromium, driven by Playwright, never downloaded."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]
# Screenshots taken by the tests, to be looked at.
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
