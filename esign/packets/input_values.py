"""How createEtchPacket's arguments read one value where it needs the service (esign.packets.inputs
and the modules of its files, signers and options): one line of text, an email address (Django's
check, also given to the signer and option models), the languages shipped. Each problem is
appended to ``problems`` at the argument's path; written once here, so that an uploaded file's
name, a forwarded signer's name and address are read as a packet's and a signer's are."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from core.engine.input_checks import length_problem, line_problem
from core.engine.problems import Problem
from esign.models import Signer

# Signer.email and Packet.reply_to_email are the same EmailField.
_EMAIL_COLUMN = Signer._meta.get_field("email")


def shipped_languages() -> tuple[str, ...]:
    """The languages of the signer's pages, emails and the audit trail: settings.LANGUAGES, each
    with its catalogues shipped (core.checks), the same codes as models.Language."""
    return tuple(code for code, _name in settings.LANGUAGES)


def one_line(value: Any, path: str, problems: list[Problem]) -> str:
    """``value`` as one line of text; a control character (a line break) is a problem: a value
    that becomes an email header (the subject is built from the packet's name) or a file name
    must stay on one line, or it could add headers."""
    text = value.strip() if isinstance(value, str) else ""
    problem = line_problem(text)
    if problem is not None:
        problems.append(Problem(path, problem))
    return text


def email_address(value: Any, path: str, problems: list[Problem]) -> str:
    """``value`` as an email address: Django's EmailValidator (the shape mail servers take),
    on one line (the validator takes control characters inside a quoted local part), that fits
    the address columns."""
    text = value.strip() if isinstance(value, str) else ""
    if text and (problem := email_problem(text)) is not None:
        problems.append(Problem(path, problem))
    return text


def email_problem(text: str) -> str | None:
    """Why ``text`` (not empty) is no email address `email_address` takes (None: it is one)."""
    try:
        validate_email(text)
    except ValidationError:
        return "Must be an email address."
    return line_problem(text) or length_problem(text, _EMAIL_COLUMN)
