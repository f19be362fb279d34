"""forgeSubmit's arguments are declared once (workflows.engine.forge_arguments, issue 53 item 1):
the service checks them with the model (today's messages, named by argument, in the model's
order), the GraphQL arguments are described by the model's fields, and the arguments a caller
holds (ForgeSubmitInput, the MCP tool's and the mutation's) are the model's."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from config.schema import schema
from core.engine.wire_models import refusal, validate
from workflows.engine.forge_arguments import (
    PAYLOAD_DESCRIPTION,
    WEBHOOK_CHECK,
    ForgeSubmitArguments,
    argument_descriptions,
    arguments_schema,
)
from workflows.submissions.save import ForgeSubmitInput


def webhook_check(url: str) -> str:
    """The service's check as the model meets it: a URL kept (stripped), or a refusal."""
    if not url.strip().startswith("https://"):
        raise refusal("Enter an http or https URL.")
    return url.strip()


def problems(arguments: dict[str, Any]) -> list[tuple[str, str]]:
    checked, found = validate(
        ForgeSubmitArguments,
        {"forgeEid": "fe1", "payload": {}, **arguments},
        context={WEBHOOK_CHECK: webhook_check},
    )
    assert (checked is None) == bool(found)
    return [(problem.path, problem.message) for problem in found]


def test_the_arguments_clients_send_are_read_as_given() -> None:
    sent = {
        "forgeEid": "fe1", "weldDataEid": "wd1", "submissionEid": "s1", "payload": {"a": None},
        "enforcePayloadValidOnCreate": False, "currentStep": 1, "complete": True,
        "isTest": True, "timezone": "Europe/Paris", "webhookURL": " https://hooks.example/in ",
        "groupArrayId": "items", "groupArrayIndex": 0, "errorType": "x", "unknown": 1,
    }  # fmt: skip
    arguments, found = validate(ForgeSubmitArguments, sent, context={WEBHOOK_CHECK: webhook_check})

    assert found == []
    assert arguments is not None
    assert arguments.payload == {"a": None}  # a null value inside the payload clears its field
    assert arguments.webhook_url == "https://hooks.example/in"  # as the check keeps it
    assert (arguments.timezone, arguments.current_step, arguments.group_array_index) == (
        "Europe/Paris",
        1,
        0,
    )
    assert arguments.enforce_payload_valid_on_create is False


def test_null_and_empty_are_not_given() -> None:
    arguments, found = validate(
        ForgeSubmitArguments,
        {"forgeEid": "fe1", "payload": {}, "timezone": None, "webhookURL": "", "isTest": None},
        context={WEBHOOK_CHECK: webhook_check},
    )
    assert found == []
    assert arguments is not None
    assert (arguments.timezone, arguments.webhook_url, arguments.is_test) == ("", "", None)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"payload": [1, 2]}, [("payload", "Must be an object keyed by field key.")]),
        ({"payload": "text"}, [("payload", "Must be an object keyed by field key.")]),
        ({"timezone": "Mars/Olympus"}, [("timezone", "Must be an IANA time zone name.")]),
        ({"timezone": "../etc/passwd"}, [("timezone", "Must be an IANA time zone name.")]),
        ({"webhookURL": "ftp://x"}, [("webhookURL", "Enter an http or https URL.")]),
        ({"forgeEid": None}, [("forgeEid", "Required")]),
        # Every argument refused is named, in the order the service has always checked them.
        ({"timezone": "Nowhere", "webhookURL": "ftp://x", "payload": 5},
         [("payload", "Must be an object keyed by field key."),
          ("webhookURL", "Enter an http or https URL."),
          ("timezone", "Must be an IANA time zone name.")]),
    ],
)  # fmt: skip
def test_an_argument_refused_is_named(arguments: dict[str, Any], expected: list) -> None:
    assert problems(arguments) == expected


def test_the_graphql_arguments_are_described_by_the_model() -> None:
    forge_submit = schema.graphql_schema.get_type("Mutation").fields["forgeSubmit"]
    described = {name: argument.description for name, argument in forge_submit.args.items()}

    assert described == argument_descriptions()
    assert described["payload"] == PAYLOAD_DESCRIPTION


def test_the_arguments_held_by_callers_are_the_models() -> None:
    held = [field.name for field in dataclasses.fields(ForgeSubmitInput)]
    assert sorted(held) == sorted(ForgeSubmitArguments.model_fields)


def test_the_schema_says_what_each_argument_takes() -> None:
    schema_ = arguments_schema()["ForgeSubmitArguments"]
    properties = schema_["properties"]

    assert schema_["required"] == ["forgeEid", "payload"]
    assert properties["payload"]["type"] == "object"
    assert properties["currentStep"]["minimum"] == 0
    assert "webhookURL" in properties
    assert properties["groupArrayId"]["description"] == argument_descriptions()["groupArrayId"]
