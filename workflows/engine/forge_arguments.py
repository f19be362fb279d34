"""forgeSubmit's arguments, declared once: what each takes, its message and its description
(issue 53, item 1).

workflows.submissions.save.forge_submit checks them with `ForgeSubmitArguments` (through
core.engine.wire_models' `validate`) as soon as the webform named is found;
workflows/graphql_docs.py describes the GraphQL arguments with the fields' descriptions, and
`arguments_schema` is their JSON schema, for a tool that takes them as JSON. GraphQL has checked
each argument's type already (String, Int, Boolean, JSON); the model says what the types do not:
``payload`` is an object, ``timezone`` a zone name and ``webhookURL`` a URL the service delivers
to (its check, which needs the service's settings and may resolve the host name, comes in
`validate`'s context: `WEBHOOK_CHECK`).

What depends on the webform is checked against it once the submission's version is read: the
entry ``groupArrayId`` and ``groupArrayIndex`` name (`entry_payload`, before the values are),
and the page ``currentStep`` names (`step_problems`, after them).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from core.engine.problems import Problem
from core.engine.wire_models import (
    Schema,
    WireModel,
    component_schemas,
    refusal,
    says,
    with_context,
)
from workflows.engine.defs import WebformDef
from workflows.engine.entries import place_entry

# `validate`'s context: the service's check of a webhook URL. It returns the URL as kept
# (stripped) and raises core.engine.wire_models.refusal(message) for a URL refused.
WEBHOOK_CHECK = "webhook_check"
WebhookCheck = Callable[[str], str]

PAYLOAD_DESCRIPTION = """The webform's values, a JSON object keyed by field key (`forge { pages }`
lists the keys): `{"name": {"firstName": "Ada", "lastName": "Lovelace"}, "email":
"ada@example.com", "amount": "1234.50", "agree": true}`. Each value given is checked by its
field's rule and merged into what is stored; a blank value clears it; unknown keys are ignored.
Problems are a ValidationError naming `payload.<key>`, and nothing is stored."""


def _zone_name(name: str) -> str:
    if name:
        try:
            zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise refusal("Must be an IANA time zone name.") from None
    return name


def _webhook_url(url: str, check: WebhookCheck) -> str:
    return check(url) if url else ""


class ForgeSubmitArguments(WireModel):
    """forgeSubmit's arguments under their wire names. A problem names its argument
    (``timezone``); the problems come in the order of the fields."""

    forge_eid: str = Field(description="The webform's eid (`weld { forges { eid } }`).")
    weld_data_eid: str | None = Field(
        None, description="The submission (weldData) to add this webform to."
    )
    submission_eid: str | None = Field(None, description="The webform submission to update.")
    payload: Annotated[dict[str, Any], says("Must be an object keyed by field key.")] = Field(
        description=PAYLOAD_DESCRIPTION
    )
    enforce_payload_valid_on_create: bool | None = Field(
        None,
        description="false: a new submission keeps the valid values and leaves the others out "
        "instead of refusing them all (default true).",
    )
    current_step: int | None = Field(
        None,
        description="The page the person is on: a page index of the webform from 0.",
        json_schema_extra={"minimum": 0},
    )
    complete: bool | None = Field(
        None,
        description="true: every required field must have a value; completes the webform "
        "(forgeComplete event).",
    )
    is_test: bool | None = Field(
        None, description="true: a test submission (always, with a development key)."
    )
    webhook_url: Annotated[str, AfterValidator(with_context(_webhook_url, WEBHOOK_CHECK))] = Field(
        "",
        alias="webhookURL",
        description="Where this submission's events go instead of the organization's "
        "webhook URL; a private or loopback address is refused unless FETCH_ALLOW_HOSTS "
        "allows it.",
    )
    timezone: Annotated[str, AfterValidator(_zone_name)] = Field(
        "", description="An IANA time zone name (Europe/Paris), kept with the submission."
    )
    group_array_id: str | None = Field(
        None,
        description="The key of one of the webform's repeating groups: the payload is then one "
        "entry of it, keyed by the group's field keys (with groupArrayIndex).",
    )
    group_array_index: int | None = Field(
        None,
        description="With groupArrayId: the entry's index from 0; the next index adds an entry.",
        json_schema_extra={"minimum": 0},
    )
    error_type: str | None = Field(None, description="Accepted and ignored.")


def argument_descriptions() -> dict[str, str]:
    """Each argument's description, by wire name."""
    return {
        str(field.alias): str(field.description)
        for field in ForgeSubmitArguments.model_fields.values()
    }


def arguments_schema() -> dict[str, Schema]:
    """The JSON schema of the arguments (a component, named by class)."""
    return component_schemas(ForgeSubmitArguments)


def step_problems(webform: WebformDef, step: int | None) -> list[Problem]:
    """``currentStep`` against the webform's pages."""
    if step is None or 0 <= step < len(webform.pages):
        return []
    return [Problem("currentStep", f"Must be a page index from 0 to {len(webform.pages) - 1}.")]


def entry_payload(
    webform: WebformDef, known: Mapping[str, Any], arguments: ForgeSubmitArguments
) -> tuple[Mapping[str, Any], str, list[Problem]]:
    """The payload as the webform's keys, the prefix of the entry it names and the problems of
    the entry's arguments. With ``groupArrayId`` (a repeating group's key) and
    ``groupArrayIndex`` the payload holds one entry's values, placed among the entries stored
    (``known``)."""
    group_id, index, payload = (
        arguments.group_array_id,
        arguments.group_array_index,
        arguments.payload,
    )
    if group_id is None and index is None:
        return payload, "", []
    group = webform.group(group_id) if group_id is not None else None
    if group is None:
        groups = ", ".join(repr(g.key) for g in webform.groups) or "none"
        message = f"Must be the key of a repeating group of the webform ({groups})."
        return payload, "", [Problem("groupArrayId", message)]
    if index is None:
        return payload, "", [Problem("groupArrayIndex", "Required with groupArrayId.")]
    unknown = sorted(set(payload) - {f.key for f in group.fields})
    if unknown:
        return (
            payload,
            "",
            [Problem(f"payload.{key}", f"Not a field of {group.key!r}.") for key in unknown],
        )
    try:
        entries = place_entry(group, known.get(group.key), index, payload)
    except ValueError as error:
        return payload, "", [Problem("groupArrayIndex", str(error))]
    return {group.key: entries}, f"{group.key}.{index}.", []
