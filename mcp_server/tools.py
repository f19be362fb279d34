"""The tools an AI agent calls, as plain functions of the caller's identity and the arguments:
each parses with the API's own parser and calls the project's services (never HTTP to itself).

A tool answers a :class:`ToolAnswer` (JSON, and a PDF as base64 up to MCP_MAX_FILE_BYTES) or
raises a ``core.errors.ServiceError``, which :func:`tool_run` turns into the wire error
(``{"name", "message"}``, validation with its ``fields``).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.identity import ApiIdentity
from core.api_errors import internal_error_body, log_unexpected
from core.errors import RequestTooLarge, ServiceError, ValidationFailed
from core.parsers import check_json_value
from esign.links import sign_url_generate
from esign.models import Packet
from esign.packets import packet_get, packet_summary, parse_packet_input
from esign.sending import packet_create, packet_intake_check
from fill.services import fill_template
from generate.services import pdf_generate
from mcp_server import schemas
from templates_app.engine.describe import example_data, field_info
from templates_app.services import templates_with_default_versions, version_spec
from workflows import submissions
from workflows.models import WebformSubmission

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolFile:
    filename: str
    mime_type: str
    data: bytes


@dataclass(frozen=True)
class ToolAnswer:
    structured: dict[str, Any]
    files: list[ToolFile] = field(default_factory=list)


@dataclass(frozen=True)
class ToolError:
    """The wire error of a refused call: name, message and, for validation, fields."""

    wire: dict[str, Any]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: Callable[[], dict[str, Any]]
    run: Callable[[ApiIdentity, dict[str, Any]], ToolAnswer]


def _text(arguments: dict[str, Any], name: str) -> str:
    """A required string argument, or the API's validation error naming it."""
    value = arguments.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValidationFailed.single(name, "Required" if value is None else "Must be a string.")
    return value


def _pdf(data: bytes, filename: str) -> ToolAnswer:
    limit = settings.MCP_MAX_FILE_BYTES
    if len(data) > limit:
        raise RequestTooLarge(
            f"The PDF is {len(data)} bytes; tools return files up to {limit} bytes "
            "(MCP_MAX_FILE_BYTES). Use the REST API for larger documents."
        )
    return ToolAnswer(
        structured={"filename": filename, "mimeType": "application/pdf", "bytes": len(data)},
        files=[ToolFile(filename=filename, mime_type="application/pdf", data=data)],
    )


def list_templates(identity: ApiIdentity, arguments: dict[str, Any]) -> ToolAnswer:
    is_template = arguments.get("isTemplate")
    if is_template is not None and not isinstance(is_template, bool):
        raise ValidationFailed.single("isTemplate", "Must be a boolean.")
    pairs = templates_with_default_versions(
        organization=identity.organization, is_template=is_template
    )
    templates = []
    for template, version in pairs:
        spec = version_spec(version)
        templates.append(
            {
                "eid": template.eid,
                "title": template.title,
                "versionNumber": version.number,
                "fieldInfo": field_info(spec),
                "exampleData": example_data(spec),
            }
        )
    return ToolAnswer(structured={"templates": templates})


def fill(identity: ApiIdentity, arguments: dict[str, Any]) -> ToolAnswer:
    template_eid = _text(arguments, "templateEid")
    version_number = arguments.get("versionNumber")
    if version_number is not None and (
        not isinstance(version_number, int) or isinstance(version_number, bool)
    ):
        raise ValidationFailed.single("versionNumber", "Must be an integer.")
    body = {k: v for k, v in arguments.items() if k not in ("templateEid", "versionNumber")}
    pdf = fill_template(
        organization=identity.organization,
        template_eid=template_eid,
        version_number=version_number,
        body=body,
    ).pdf
    return _pdf(pdf, f"{template_eid}.pdf")


def generate(identity: ApiIdentity, arguments: dict[str, Any]) -> ToolAnswer:
    pdf = pdf_generate(
        organization=identity.organization, watermark=identity.is_development, body=arguments
    )
    return _pdf(pdf, "generated.pdf")


def _packet(packet: Packet) -> dict[str, Any]:
    group = getattr(packet, "document_group", None)
    return {
        **packet_summary(packet),
        "documentGroup": {"eid": group.eid, "status": group.status} if group else None,
        "signers": [
            {
                "eid": signer.eid,
                "aliasId": signer.alias_id,
                "name": signer.name,
                "email": signer.email,
                "signerType": signer.signer_type,
                "routingOrder": signer.routing_order,
                "status": signer.status,
            }
            for signer in packet.signers.order_by("routing_order", "id")
        ],
    }


def create_packet(identity: ApiIdentity, arguments: dict[str, Any]) -> ToolAnswer:
    packet_intake_check()
    packet = packet_create(
        organization=identity.organization,
        watermark=identity.is_development,
        packet_input=parse_packet_input(arguments),
    )
    return ToolAnswer(structured=_packet(packet))


def get_packet(identity: ApiIdentity, arguments: dict[str, Any]) -> ToolAnswer:
    eid = _text(arguments, "eid")
    return ToolAnswer(structured=_packet(packet_get(organization=identity.organization, eid=eid)))


def get_signing_link(identity: ApiIdentity, arguments: dict[str, Any]) -> ToolAnswer:
    url = sign_url_generate(
        identity=identity,
        signer_eid=_text(arguments, "signerEid"),
        client_user_id=_text(arguments, "clientUserId"),
    )
    return ToolAnswer(structured={"url": url})


# forgeSubmit's arguments this tool offers, by wire name: their Python names here, their schema
# from their declaration (mcp_server.schemas.submit_workflow).
_FORGE_ARGUMENTS = {
    "forgeEid": "forge_eid",
    "payload": "payload",
    "weldDataEid": "weld_data_eid",
    "submissionEid": "submission_eid",
    "complete": "complete",
    "isTest": "is_test",
    "currentStep": "current_step",
    "webhookURL": "webhook_url",
}


def submit_workflow(identity: ApiIdentity, arguments: dict[str, Any]) -> ToolAnswer:
    _text(arguments, "forgeEid")
    if not isinstance(arguments.get("payload"), dict):
        raise ValidationFailed.single("payload", "Required: a JSON object.")
    unknown = sorted(set(arguments) - set(_FORGE_ARGUMENTS))
    if unknown:
        raise ValidationFailed.single(unknown[0], "Not an argument of submit_workflow.")
    submit = submissions.ForgeSubmitInput(
        **{_FORGE_ARGUMENTS[key]: value for key, value in arguments.items()}
    )
    row: WebformSubmission = submissions.forge_submit(identity=identity, submit=submit)
    return ToolAnswer(
        structured={
            "eid": row.eid,
            "status": "completed" if row.completed_at else "in-progress",
            "continueURL": submissions.continue_url(row.submission),
            "weldDataEid": row.submission.eid,
        }
    )


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in [
        ToolSpec(
            "list_templates",
            "The organization's PDF templates, each with its fields (fieldInfo) and example "
            "fill data.",
            schemas.list_templates,
            list_templates,
        ),
        ToolSpec(
            "fill_template",
            "Fill a PDF template with JSON data (as POST /api/v1/fill/<eid>.pdf); the PDF "
            "comes back as base64.",
            schemas.fill_template,
            fill,
        ),
        ToolSpec(
            "generate_pdf",
            "Make a PDF from HTML/CSS (type: html) or Markdown blocks (as POST "
            "/api/v1/generate-pdf); the PDF comes back as base64.",
            schemas.generate_pdf,
            generate,
        ),
        ToolSpec(
            "create_packet",
            "Create an e-signature packet (as createEtchPacket) and send it unless isDraft.",
            schemas.create_packet,
            create_packet,
        ),
        ToolSpec(
            "get_packet",
            "A packet's status and its signers' statuses.",
            schemas.get_packet,
            get_packet,
        ),
        ToolSpec(
            "get_signing_link",
            "A signing link for an embedded signer (as generateEtchSignURL).",
            schemas.get_signing_link,
            get_signing_link,
        ),
        ToolSpec(
            "submit_workflow",
            "Submit values to a workflow's webform (as forgeSubmit).",
            partial(schemas.submit_workflow, _FORGE_ARGUMENTS),
            submit_workflow,
        ),
    ]
}


def tool_run(identity: ApiIdentity, name: str, arguments: dict[str, Any]) -> ToolAnswer | ToolError:
    """Run tool ``name`` on ``arguments`` checked as the API checks a body, in one transaction;
    a refusal is its wire error, anything unexpected an internal error
    logged by type and frames only (arguments can hold people's data)."""
    spec = TOOLS.get(name)
    if spec is None:
        return ToolError({"name": "NotFoundError", "message": f"No tool named '{name}'."})
    try:
        # The API's door checks, which a JSON body meets before any parser: no NUL, control
        # character or lone surrogate in any string, no nesting past the API's depth.
        check_json_value(arguments, max_depth=settings.API_JSON_MAX_DEPTH)
        # The input schema allows no other argument (additionalProperties: false), so a
        # misspelt one is refused by name rather than ignored.
        unknown = sorted(set(arguments) - set(spec.input_schema()["properties"]))
        if unknown:
            raise ValidationFailed.single(unknown[0], f"Not an argument of {name}.")
        # A refused call stores nothing, whatever its tool did before refusing.
        with transaction.atomic():
            return spec.run(identity, arguments)
    except ServiceError as error:
        wire = error.as_wire()
        return ToolError({**wire, "message": error.message})
    except Exception as error:  # noqa: BLE001 - answered as the API answers a 500
        log_unexpected(error)
        return ToolError(internal_error_body())


def file_base64(tool_file: ToolFile) -> str:
    return base64.b64encode(tool_file.data).decode("ascii")
