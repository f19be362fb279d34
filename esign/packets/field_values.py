"""What a typed field's value may be, by its type: how long, and in what shape (an email an
address, a date YYYY-MM-DD). The signer's values at finish (esign.signing.turns) and the sender's
prefilled values (esign.packets.updates) are held to the same rules."""

from __future__ import annotations

import re
from datetime import date

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _

# The longest value a signer may type, by field type; the others are SIGNING_TEXT_MAX_CHARS.
_EMAIL_MAX_CHARS = 254  # RFC 5321's longest address
_DATE_MAX_CHARS = 32  # any spelling of a date


def value_cap(kind: str) -> int:
    if kind == "email":
        return _EMAIL_MAX_CHARS
    if kind == "date":
        return _DATE_MAX_CHARS
    if kind == "fullName":
        return int(settings.SIGNING_NAME_MAX_CHARS)
    return int(settings.SIGNING_TEXT_MAX_CHARS)


def type_problem(kind: str, value: str) -> str | None:
    """What is wrong with ``value`` for a field of ``kind`` (as fill checks its types): an
    email must be an address, a date an ISO date (YYYY-MM-DD)."""
    if kind == "email":
        try:
            validate_email(value)
        except ValidationError:
            return _("Enter an email address, like name@example.com.")
    if kind == "date":
        try:
            date.fromisoformat(value)
        except ValueError:
            return _("Enter a date as YYYY-MM-DD.")
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return _("Enter a date as YYYY-MM-DD.")
    return None
