"""createEtchPacket's own options are declared once (esign.engine.option_model, issue 53 item
1): the parser reads them through the model with today's problems (paths, messages, their
order), and the MCP tool's arguments beside files, signers and data are the model's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from core.engine.input_checks import LINE_MESSAGE
from core.engine.problems import Problem
from core.moments import ISO_MESSAGE
from esign.engine.option_model import PacketOptions
from esign.packets.packet_options import packet_options
from mcp_server.schemas import create_packet

LANGUAGES = ", ".join(code for code, _name in settings.LANGUAGES)


def read(arguments: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    problems: list[Problem] = []
    options = packet_options(arguments, problems)
    return options, [(p.path, p.message) for p in problems]


def test_good_options_are_read_into_their_values() -> None:
    before = timezone.now()
    options, problems = read(
        {
            "name": " Lease ",
            "isDraft": 1,
            "mergePDFs": True,
            "webhookURL": " https://example.com/hook ",
            "signatureEmailBody": " Hi ",
            "replyToEmail": "ops@example.com",
            "reminderDays": 3,
            "language": "PT-BR",
            "expiresInDays": 2,
            "allowForward": True,
            "files": "not read here",
        }
    )
    assert problems == []
    assert (options["name"], options["is_draft"], options["is_test"], options["merge_pdfs"]) == (
        "Lease",
        True,
        False,
        True,
    )
    assert (options["webhook_url"], options["email_body"], options["reminder_days"]) == (
        "https://example.com/hook",
        "Hi",
        3,
    )
    assert (options["language"], options["allow_forward"], options["allow_updates"]) == (
        "pt-br",
        True,
        False,
    )
    assert before + timedelta(days=2) <= options["expires_at"] <= timezone.now() + timedelta(2)
    assert read({})[0]["name"] == "Signature packet"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {
                "verificationStamp": "yes",
                "allowUpdates": 1,
                "allowForward": "no",
                "expiresAt": "2030-01-01",
                "expiresInDays": 3,
                "language": "xx",
                "replyToName": "a\nb",
                "signatureEmailSubject": "s\x00",
                "name": "n\x00m",
                "reminderDays": True,
                "replyToEmail": "nope",
                "webhookURL": "ftp://x",
            },
            [
                ("webhookURL", "Must be an http(s) URL."),
                ("replyToEmail", "Must be an email address."),
                ("reminderDays", "Must be a whole number from 1 to 365."),
                ("name", LINE_MESSAGE),
                ("signatureEmailSubject", LINE_MESSAGE),
                ("replyToName", LINE_MESSAGE),
                ("language", f"Must be one of {LANGUAGES}."),
                ("expiresInDays", "Give expiresAt or expiresInDays, not both."),
                ("allowForward", "Must be true or false."),
                ("allowUpdates", "Must be true or false."),
                ("verificationStamp", "Must be true or false."),
            ],
        ),
        ({"expiresAt": "tomorrow"}, [("expiresAt", ISO_MESSAGE)]),
        ({"expiresAt": "2000-01-01T00:00:00Z"}, [("expiresAt", "Must be in the future.")]),
        (
            {"expiresAt": "2999-01-01T00:00:00"},
            [("expiresAt", "Must be at most 1825 days from now.")],
        ),
        ({"expiresInDays": 1826}, [("expiresInDays", "Must be a whole number from 1 to 1825.")]),
        ({"expiresInDays": 2.0}, [("expiresInDays", "Must be a whole number from 1 to 1825.")]),
        (
            {"reminderDays": 0, "expiresAt": "x", "expiresInDays": 1},
            [
                ("reminderDays", "Must be a whole number from 1 to 365."),
                ("expiresInDays", "Give expiresAt or expiresInDays, not both."),
            ],
        ),
        (
            {"expiresAt": "x", "expiresInDays": 1},
            [
                ("expiresInDays", "Give expiresAt or expiresInDays, not both."),
            ],
        ),
        # As before: what is not text reads as none; a switch is read for its truth.
        ({"name": 5, "webhookURL": 5, "isTest": "no", "signatureEmailBody": 5}, []),
    ],
)
def test_each_problem_is_named_as_before(arguments: dict[str, Any], expected: list[Any]) -> None:
    assert read(arguments)[1] == expected


def test_the_mcp_tool_takes_the_models_options() -> None:
    properties = create_packet()["properties"]
    declared = [str(field.alias) for field in PacketOptions.model_fields.values()]
    assert list(properties) == ["files", "signers", "data", *declared]
    assert properties["expiresAt"]["format"] == "date-time"
    assert properties["reminderDays"]["maximum"] == 365
