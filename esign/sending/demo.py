"""The demo e-signature packet that the run command shows: two signers of the demo template,
the first one embedded, so a new user can open a signing page at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db import transaction

from accounts.identity import ApiIdentity
from esign.links.tokens import signer_token_issue, signing_url
from esign.models import Packet, Signer
from esign.packets import lifecycle
from esign.packets.inputs import parse_packet_input
from esign.sending import packets as services

DEMO_PACKET_NAME = "Demo packet"

MUTATION = (
    "mutation($name: String, $isTest: Boolean, $files: [EtchFile!], $signers: [JSON!], "
    "$data: JSON) { createEtchPacket(name: $name, isTest: $isTest, files: $files, "
    "signers: $signers, data: $data) { eid status documentGroup { eid signers { eid aliasId "
    "name routingOrder signActionType status } } } }"
)


def demo_packet_variables(template_eid: str) -> dict[str, Any]:
    """createEtchPacket's variables: the demo template, filled, with a signature and a date for
    each of two signers; the first signs embedded (a signing URL), the second by email."""

    def field(field_id: str, kind: str, y: float, x: float = 54, width: float = 200) -> dict:
        return {
            "id": field_id,
            "type": kind,
            "pageNum": 1,
            "rect": {"x": x, "y": y, "width": width, "height": 36 if kind == "signature" else 18},
        }

    return {
        "name": DEMO_PACKET_NAME,
        "isTest": True,
        "files": [
            {
                "id": "demo",
                "castEid": template_eid,
                "title": "Demo template",
                "fields": [
                    field("clientSignature", "signature", 120),
                    field("clientDate", "signatureDate", 120, x=300, width=120),
                    field("providerSignature", "signature", 60),
                    field("providerDate", "signatureDate", 60, x=300, width=120),
                ],
            }
        ],
        "signers": [
            {
                "id": "client",
                "name": "Ada Lovelace",
                "email": "ada@example.com",
                "signerType": "embedded",
                "routingOrder": 1,
                "fields": [
                    {"fileId": "demo", "fieldId": "clientSignature"},
                    {"fileId": "demo", "fieldId": "clientDate"},
                ],
            },
            {
                "id": "provider",
                "name": "Charles Babbage",
                "email": "charles@example.com",
                "signerType": "email",
                "routingOrder": 2,
                "fields": [
                    {"fileId": "demo", "fieldId": "providerSignature"},
                    {"fileId": "demo", "fieldId": "providerDate"},
                ],
            },
        ],
        "data": {
            "payloads": {
                "demo": {
                    "data": {
                        "name": {"firstName": "Ada", "lastName": "Lovelace"},
                        "email": "ada@example.com",
                    }
                }
            }
        },
    }


def demo_packet_request_write(path: Path, template_eid: str) -> None:
    """The GraphQL body that creates a demo packet, for ``curl -d @<path>``."""
    body = {"query": MUTATION, "variables": demo_packet_variables(template_eid)}
    path.write_text(json.dumps(body, indent=2) + "\n")


@transaction.atomic
def demo_packet_signing_url(
    *, identity: ApiIdentity, template_eid: str, packet_eid: str = ""
) -> tuple[str, str]:
    """A signing URL of the first signer of the demo packet, and that packet's eid.

    The demo packet is the one whose eid the caller kept (``packet_eid``): found by that stable
    id, never by its name, which any packet made from the printed request shares. It is kept
    while it is open; a new one is made when there is none yet, or it was signed, declined or
    voided (the caller keeps the new eid). A new link at every call: tokens are stored hashed,
    so an earlier link cannot be shown again."""
    packet = (
        Packet.objects.filter(
            organization=identity.organization, eid=packet_eid, status__in=lifecycle.OPEN_PACKET
        ).first()
        if packet_eid
        else None
    )
    first = packet.signers.filter(alias_id="client").first() if packet is not None else None
    if (
        packet is None
        or first is None
        or first.status
        in (
            Signer.Status.COMPLETED,
            Signer.Status.DECLINED,
        )
    ):
        packet = services.packet_create(
            organization=identity.organization,
            watermark=identity.is_development,
            packet_input=parse_packet_input(demo_packet_variables(template_eid)),
        )
        first = packet.signers.get(alias_id="client")
    token = signer_token_issue(signer=first, client_user_id="demo")
    return signing_url(signer=first, token=token), packet.eid
