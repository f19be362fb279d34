"""A signer of createEtchPacket is declared once (esign.engine.signer_model, issue 53 item 1):
the parser reads signers through it with today's problems (paths, messages and their order,
the wire's old leniencies), the MCP tool's schema is derived from it, and the GraphQL
description's shape names the same keys. The model's bounds are the columns'."""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.engine.input_checks import column_range
from core.engine.problems import Problem
from core.engine.template_spec import Rect
from esign.engine import signer_model
from esign.engine.signer_model import SignerModel, signer_schema
from esign.graphql_docs import SIGNER_SHAPE
from esign.models import Signer
from esign.packets.initials import ALL_FILES
from esign.packets.signature_levels import ACCEPTED
from esign.packets.signer_inputs import signer_input
from mcp_server.schemas import create_packet

ADA = {"name": "Ada", "email": "ada@example.com"}
WIRE_KEYS = [str(field.alias) for field in SignerModel.model_fields.values()]


def read(raw: Any, index: int = 0) -> tuple[Any, list[tuple[str, str]]]:
    problems: list[Problem] = []
    signer = signer_input(raw, index, problems)
    return signer, [(p.path, p.message) for p in problems]


def test_the_model_bounds_are_the_columns() -> None:
    orders = column_range(Signer._meta.get_field("routing_order"), low=1)
    assert (orders.low, orders.high) == (1, signer_model.ROUTING_ORDER_MAX)
    assert Signer._meta.get_field("redirect_url").max_length == signer_model.REDIRECT_URL_MAX
    assert tuple(role.value for role in Signer.Role) == signer_model.ROLES
    assert tuple(level.value for level in ACCEPTED) == signer_model.SIGNATURE_LEVELS
    assert ALL_FILES == signer_model.ALL_FILES


def test_a_good_signer_is_read_into_its_values() -> None:
    signer, problems = read(
        {
            **ADA,
            "id": " client ",
            "routingOrder": 2,
            "fields": [{"fileId": " lease ", "fieldId": "sig1"}],
            "language": "PT-BR",
            "verify": {"method": "sms", "phone": "+44 20 7946 0958"},
            "group": {"id": " directors ", "required": 2},
            "enableEmails": [],
            "unknownKey": 1,
        },
        index=3,
    )
    assert problems == []
    assert signer.alias_id == "client"
    assert signer.routing_order == 2
    assert signer.fields == (("lease", "sig1"),)
    assert signer.language == "pt-br"
    assert (signer.verify_method, signer.verify_phone) == ("sms", "+442079460958")
    assert (signer.signing_group, signer.signing_group_required) == ("directors", 2)
    assert signer.enable_emails is False  # a list names the emails wanted: [] none
    initials, _ = read(
        {
            **ADA,
            "initialsOnEveryPage": [" lease ", "lease", "nda"],
            "initialsPosition": {"x": 40, "y": 20, "width": 60, "height": 24},
        }
    )
    assert initials.initials_files == ("lease", "nda")
    assert initials.initials_position == Rect(40.0, 20.0, 60.0, 24.0)
    defaulted, _ = read({"name": "Bo", "signerType": "embedded", "signatureMode": ""}, index=3)
    assert (defaulted.alias_id, defaulted.routing_order, defaulted.signature_mode) == (
        "signer4",
        4,
        "draw",
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # Today's order: the email's own problem comes before the missing name's.
        (
            {"email": "nope"},
            [("signers.0.email", "Must be an email address."), ("signers.0.name", "Required")],
        ),
        # Text that is not text reads as empty.
        (
            {"name": 5, "email": 7},
            [("signers.0.name", "Required"), ("signers.0.email", "Required for an email signer.")],
        ),
        # A null routingOrder is refused; a null enableEmails is no emails.
        (
            {**ADA, "routingOrder": None},
            [("signers.0.routingOrder", "Must be a whole number from 1 to 2147483647.")],
        ),
        (
            {**ADA, "routingOrder": True, "signatureMode": "pen", "redirectURL": "ftp://x"},
            [
                ("signers.0.routingOrder", "Must be a whole number from 1 to 2147483647."),
                ("signers.0.signatureMode", "Must be draw or text."),
                ("signers.0.redirectURL", "Must be an http(s) URL."),
            ],
        ),
        (
            {**ADA, "fields": [{"fileId": "f"}, 3, {"fieldId": "s"}]},
            [
                ("signers.0.fields.1", "Must be {fileId, fieldId}."),
                ("signers.0.fields.2", "Must be {fileId, fieldId}."),
            ],
        ),
        (
            {**ADA, "fields": {"fileId": "f"}},
            [("signers.0.fields", "Must be a list of {fileId, fieldId}.")],
        ),
        ({**ADA, "verify": {}}, [("signers.0.verify.method", "Must be email, sms or integrator.")]),
        ({**ADA, "verify": "sms"}, [("signers.0.verify", "Must be an object {method, phone}.")]),
        (
            {**ADA, "verify": {"method": "sms"}},
            [("signers.0.verify.phone", "Required for an SMS code.")],
        ),
        (
            {"name": "A", "signerType": "embedded", "verify": {"method": "email"}},
            [("signers.0.verify.method", "An email code needs the signer's email.")],
        ),
        (
            {**ADA, "verify": {"method": "integrator"}},
            [("signers.0.verify.method", "Only an embedded signer may be integrator.")],
        ),
        (
            {**ADA, "group": {"id": "g", "required": None}},
            [("signers.0.group.required", "Must be a whole number from 1.")],
        ),
        (
            {**ADA, "group": {"required": 0}},
            [("signers.0.group.id", "Required: the group's id, a non-empty string.")],
        ),
        ({**ADA, "group": []}, [("signers.0.group", "Must be an object {id, required}.")]),
        # A position is refused alone without initials, as before (not also for its shape).
        (
            {**ADA, "initialsOnEveryPage": "x", "initialsPosition": {"x": 1}},
            [
                ("signers.0.initialsOnEveryPage", "Must be true, false or a list of file ids."),
                ("signers.0.initialsPosition", "Only with initialsOnEveryPage."),
            ],
        ),
        (
            {**ADA, "initialsOnEveryPage": True, "initialsPosition": {"x": 1}},
            [("signers.0.initialsPosition", "Must be {x, y, width, height} in points.")],
        ),
        (
            {
                **ADA,
                "initialsOnEveryPage": ["f"],
                "initialsPosition": {"x": -1, "y": 0, "width": 5, "height": 5},
            },
            [
                (
                    "signers.0.initialsPosition",
                    "x and y must be 0 or more, width and height positive.",
                )
            ],
        ),
        (
            {**ADA, "signatureLevel": ""},
            [("signers.0.signatureLevel", "Must be simple, advanced or qualified.")],
        ),
        (
            {"name": "A", "signerType": "embedded", "signatureLevel": "advanced", "role": "viewer"},
            [
                ("signers.0.signatureLevel", "A viewer signs nothing: only simple."),
                (
                    "signers.0.signatureLevel",
                    "An advanced signer needs an email (or a phone to verify) for their "
                    "certificate to name.",
                ),
            ],
        ),
        (
            {**ADA, "role": "boss", "witnessFor": "x"},
            [("signers.0.role", "Must be signer, witness, approver or viewer.")],
        ),
        (
            {**ADA, "witnessFor": "x"},
            [("signers.0.witnessFor", 'Only for a signer of role "witness".')],
        ),
        (
            {**ADA, "role": "witness"},
            [("signers.0.witnessFor", "Required: the id of the signer witnessed.")],
        ),
        (
            {"name": "A", "signerType": "embedded", "allowForward": True, "allowUpdates": 1},
            [
                (
                    "signers.0.allowForward",
                    "An embedded signer cannot forward from the signing page: reassign them "
                    "with reassignEtchSigner.",
                ),
                ("signers.0.allowUpdates", "Must be true or false."),
            ],
        ),
        (
            {**ADA, "language": "xx"},
            [
                (
                    "signers.0.language",
                    "Must be one of "
                    + ", ".join(
                        code for code, _name in __import__("django.conf").conf.settings.LANGUAGES
                    )
                    + ".",
                )
            ],
        ),
    ],
)
def test_each_problem_is_named_as_before(raw: dict[str, Any], expected: list[Any]) -> None:
    assert read(raw)[1] == expected


def test_a_key_refused_leaves_the_others_to_the_packets_checks() -> None:
    signer, problems = read(
        {
            "name": "A\x00b",
            "email": "nope",
            "routingOrder": 0,
            "fields": [{"fileId": "f", "fieldId": "s"}, 3],
            "role": "approver",
            "group": {"id": "g"},
        },
        index=1,
    )
    assert [path for path, _message in problems] == [
        "signers.1.name",
        "signers.1.email",
        "signers.1.routingOrder",
        "signers.1.fields.1",
    ]
    # As before: the name as sent, the order by position, the good references, the role and the
    # group, which the roles' and groups' checks read next.
    assert (signer.name, signer.routing_order, signer.fields) == ("A\x00b", 2, (("f", "s"),))
    assert (signer.role, signer.signing_group) == ("approver", "g")
    assert read("not an object", index=2) == (None, [("signers.2", "Must be an object.")])


def test_the_mcp_tool_takes_the_models_schema() -> None:
    schema = create_packet()
    items = schema["properties"]["signers"]["items"]
    declared = signer_schema()
    assert list(items["properties"]) == WIRE_KEYS == list(declared["SignerModel"]["properties"])
    assert items["required"] == ["name"]
    assert items["properties"]["signerType"]["enum"] == list(signer_model.SIGNER_TYPES)
    assert items["properties"]["signatureLevel"]["enum"] == list(signer_model.SIGNATURE_LEVELS)
    assert items["properties"]["verify"] == {
        "$ref": "#/$defs/SignerVerify",
        "description": declared["SignerModel"]["properties"]["verify"]["description"],
    }
    assert set(schema["$defs"]) == {
        "AttachmentModel",
        "SignerFieldRef",
        "SignerGroup",
        "SignerVerify",
    }
    assert items["properties"]["attachments"]["items"] == {"$ref": "#/$defs/AttachmentModel"}
    assert schema["$defs"]["SignerVerify"]["properties"]["method"]["enum"] == list(
        signer_model.VERIFY_METHODS
    )


def _shape_keys(shape: str) -> list[str]:
    """The keys of the example signer in the GraphQL description (its top level only)."""
    keys = []
    for line in shape.split("```")[1].splitlines():
        code = line.split("#", 1)[0]
        depth = 0
        for piece in re.finditer(r'[{}\[\]]|"(\w+)":', code):
            if piece.group(0) in "{[":
                depth += 1
            elif piece.group(0) in "}]":
                depth -= 1
            elif depth == 0 and line.startswith('  "'):
                keys.append(piece.group(1))
    return keys


def test_the_graphql_description_shows_the_models_keys() -> None:
    assert sorted(_shape_keys(SIGNER_SHAPE)) == sorted(WIRE_KEYS)
