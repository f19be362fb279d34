"""A signer's attachment fields are declared once (esign.engine.attachment_model, issue 53 item
1): the parser reads ``attachments`` through it with today's problems (paths, messages and their
order, a field refused for its type or id being that problem alone), as a signer's key of the
signer model (esign.engine.signer_model), whose schema says so."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from core.engine.input_checks import LINE_MESSAGE
from core.engine.problems import Problem
from esign.engine.attachment_model import AttachmentModel, attachments_schema
from esign.engine.signer_model import signer_schema
from esign.packets.attachment_fields import AttachmentField
from esign.packets.signer_inputs import signer_input

CAP = 1000
PATH = "signers.1.attachments"


def read(raw: Any) -> tuple[tuple[AttachmentField, ...], list[tuple[str, str]]]:
    """``raw`` as the ``attachments`` of the second signer, good otherwise, read as
    createEtchPacket reads a signer."""
    problems: list[Problem] = []
    with override_settings(ESIGN_ATTACHMENT_MAX_BYTES=CAP):
        signer = signer_input(
            {"name": "Ada", "email": "ada@example.com", "attachments": raw}, 1, problems
        )
    assert signer is not None
    return signer.attachment_fields, [(p.path, p.message) for p in problems]


def test_a_good_list_is_read_into_fields() -> None:
    fields, problems = read(
        [
            {"id": " photo ", "label": " Your ID ", "acceptedTypes": ["image/PNG", "jpg", "png"]},
            {"type": "attachment", "id": "proof", "required": False, "maxBytes": 10},
        ]
    )
    assert problems == []
    assert fields == (
        AttachmentField("photo", "Your ID", True, ("png", "jpeg"), CAP),
        AttachmentField("proof", "proof", False, ("pdf", "png", "jpeg"), 10),
    )
    assert read(None) == ((), [])


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"id": "a"}, [(PATH, "Must be a list of attachment fields.")]),
        ([{"id": str(n)} for n in range(11)], [(PATH, "At most 10 attachment fields a signer.")]),
        (
            [
                None,
                {"type": None, "id": 5, "label": 5},
                {"id": "  ", "label": 5},
                {"id": "a\nb"},
                {"id": "x" * 201},
                {"id": "a", "label": None, "required": None, "maxBytes": None},
                {"id": " a ", "label": "l\n", "acceptedTypes": ["heic", "gif", "pdf"]},
                {"id": "b", "acceptedTypes": [], "maxBytes": CAP + 1},
                {"id": "c", "label": "y" * 201, "required": "yes", "maxBytes": True},
            ],
            [
                (f"{PATH}.0", "Must be an object."),
                (f"{PATH}.1.type", "Must be attachment."),
                (f"{PATH}.2.id", "Required"),
                (f"{PATH}.3.id", LINE_MESSAGE),
                (f"{PATH}.4.id", "At most 200 characters."),
                (f"{PATH}.5.label", "Must be text."),
                (f"{PATH}.5.required", "Must be true or false."),
                (f"{PATH}.5.maxBytes", f"Must be a whole number from 1 to {CAP}."),
                (f"{PATH}.6.id", "Duplicate attachment field id 'a'."),
                (f"{PATH}.6.label", LINE_MESSAGE),
                (
                    f"{PATH}.6.acceptedTypes.0",
                    "HEIC is not accepted (few viewers open it): ask for jpeg, which phones "
                    "send when a page asks for it.",
                ),
                (f"{PATH}.6.acceptedTypes.1", "Must be one of pdf, png, jpeg."),
                (f"{PATH}.7.acceptedTypes", "Must be a list of pdf, png, jpeg."),
                (f"{PATH}.7.maxBytes", f"Must be a whole number from 1 to {CAP}."),
                (f"{PATH}.8.label", "At most 200 characters."),
                (f"{PATH}.8.required", "Must be true or false."),
                (f"{PATH}.8.maxBytes", f"Must be a whole number from 1 to {CAP}."),
            ],
        ),
    ],
)
def test_each_problem_is_named_as_before(raw: Any, expected: list[Any]) -> None:
    assert read(raw)[1] == expected


def test_a_field_refused_on_a_later_key_still_counts() -> None:
    # The signer's and the packet's caps and a role's check count it (the packet is refused).
    fields, problems = read([{"id": "a", "maxBytes": 0}, {"id": 5}])
    assert [field.id for field in fields] == ["a"]
    assert [path for path, _message in problems] == [f"{PATH}.0.maxBytes", f"{PATH}.1.id"]


def test_the_schema_is_the_models() -> None:
    schema = attachments_schema()["AttachmentModel"]
    assert list(schema["properties"]) == [
        str(field.alias) for field in AttachmentModel.model_fields.values()
    ]
    assert schema["required"] == ["id"]
    signer = signer_schema()
    assert signer["AttachmentModel"] == schema
    assert signer["SignerModel"]["properties"]["attachments"]["items"] == {
        "$ref": "#/components/schemas/AttachmentModel"
    }
