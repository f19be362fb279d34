"""The sections of the organization's settings page, and what other apps contribute to it.

accounts is below the apps that add to its page (the layers in pyproject.toml), so it cannot
import them: an app registers its sections, the parts it adds inside another section, and a
function that gives their templates what they show, from its ``AppConfig.ready()``::

    settings_section_add(anchor="webhook", label="Webhooks", template="...", order=20)
    settings_part_add(section="encryption", template="...")
    settings_context_add(webhook_settings_context)

Registering again replaces (``ready()`` may run twice in tests), so nothing is shown twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from accounts.models import Organization

SettingsContext = Callable[[HttpRequest, Organization], dict[str, Any]]


@dataclass(frozen=True)
class SettingsSection:
    anchor: str  # its id on the page, its link in the nav, the key of its error message
    label: str  # its link's text in the nav
    template: str
    order: int  # place on the page, smallest first


_sections: dict[str, SettingsSection] = {}
_parts: dict[str, dict[str, None]] = {}  # section anchor -> templates shown at its end, in order
_contexts: dict[str, SettingsContext] = {}


def settings_section_add(*, anchor: str, label: str, template: str, order: int) -> None:
    _sections[anchor] = SettingsSection(anchor=anchor, label=label, template=template, order=order)


def settings_part_add(*, section: str, template: str) -> None:
    """Show ``template`` at the end of the section ``section`` (another app's, possibly)."""
    _parts.setdefault(section, {})[template] = None


def settings_context_add(context: SettingsContext) -> None:
    """``context(request, organization)`` adds what the app's templates show to the page's."""
    _contexts[f"{context.__module__}.{context.__qualname__}"] = context


def settings_sections() -> list[SettingsSection]:
    return sorted(_sections.values(), key=lambda section: section.order)


def settings_parts() -> dict[str, list[str]]:
    return {anchor: list(templates) for anchor, templates in _parts.items()}


def settings_context(request: HttpRequest, organization: Organization) -> dict[str, Any]:
    context: dict[str, Any] = {}
    for add in _contexts.values():
        context.update(add(request, organization))
    return context


# accounts' own sections; webhooks adds "webhook" (20) and "log" (50) between them.
settings_section_add(
    anchor="keys", label="API keys", template="accounts/settings/keys.html", order=10
)
settings_section_add(
    anchor="encryption",
    label="Encryption",
    template="accounts/settings/encryption.html",
    order=30,
)
settings_section_add(
    anchor="embedding",
    label="Embedding",
    template="accounts/settings/embedding.html",
    order=40,
)
settings_section_add(
    anchor="usage", label="Usage", template="accounts/settings/usage.html", order=60
)
