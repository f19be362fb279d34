"""Every shipped language says everything (issue 35, item 2): each app's catalogue in each
language of settings.LANGUAGES has every message of the Spanish one (the catalogue new messages
reach first), none empty or fuzzy, and each keeps the English message's placeholders
(``%(name)s``, ``{name}``) and HTML tags exactly, so no page shows a raw ``{count}`` or loses
its markup."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings
from django.utils.translation import to_locale

from core.catalogues import po_entries

ROOT = Path(__file__).resolve().parents[2]
APPS = ("esign", "workflows")
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w+\}|</?\w+[^>]*>")


def entries(app: str, language: str) -> list[dict[str, str]]:
    po = ROOT / app / "locale" / to_locale(language) / "LC_MESSAGES" / "django.po"
    return [entry for entry in po_entries(po.read_text("utf-8")) if entry["msgid"]]


def key(entry: dict[str, str]) -> tuple[str, str]:
    return entry.get("msgctxt", ""), entry["msgid"]


def placeholders(text: str) -> Counter[str]:
    return Counter(PLACEHOLDER.findall(text))


def test_sixteen_languages_or_more_are_shipped() -> None:
    assert len(settings.LANGUAGES) >= 16
    assert {"ar", "he", "ja", "ko", "zh-hans"} <= {code for code, _name in settings.LANGUAGES}


@pytest.mark.parametrize("app", APPS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_with_its_placeholders(app: str, language: str) -> None:
    wanted = {key(entry) for entry in entries(app, "es")}
    catalogue = entries(app, language)
    problems = []
    for entry in catalogue:
        if "fuzzy" in entry.get("flags", ""):
            problems.append(("fuzzy", entry["msgid"]))
        forms = [v for k, v in entry.items() if k == "msgstr" or k.startswith("msgstr[")]
        for form in forms:
            if not form.strip():
                problems.append(("empty", entry["msgid"]))
            elif placeholders(form) not in (
                placeholders(entry["msgid"]),
                placeholders(entry.get("msgid_plural", entry["msgid"])),
            ):
                problems.append(("placeholders", entry["msgid"], form))

    assert problems == []
    assert sorted(wanted - {key(entry) for entry in catalogue}) == []
    assert len(catalogue) > 100


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_a_page_says_is_what_its_catalogue_says(language: str) -> None:
    """The apps' catalogues win over the installed packages' (LOCALE_PATHS): DRF's or
    django.contrib.auth's "Created" or "Email" does not stand in for ours. A message both apps
    have is translated alike in both."""
    from django.utils import translation

    wrong = []
    with translation.override(language):
        for app in APPS:
            for entry in entries(app, language):
                if "msgid_plural" in entry:
                    continue
                said = (
                    translation.pgettext(entry["msgctxt"], entry["msgid"])
                    if "msgctxt" in entry
                    else translation.gettext(entry["msgid"])
                )
                if said != entry["msgstr"]:
                    wrong.append((app, entry["msgid"], said, entry["msgstr"]))
    assert wrong == []
