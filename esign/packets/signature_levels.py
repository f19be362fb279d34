"""A signer's ``signatureLevel`` (an extension, issue 51): ``simple`` (their marks drawn into the
pages, covered by the service's seal: the default), or ``advanced`` (besides, their own PAdES
signature on every document, with a certificate the service's signer CA issues them for the
occasion: esign.sealing.signer_signatures).

Parsed from the signer JSON by esign.packets.inputs (the wire's ValidationError, nothing stored,
for anything else) and kept in a row of its own (esign.signature_models.SignerLevel) once the
packet's signers are stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.engine.problems import Problem
from esign.signature_models import SignatureLevel, SignerLevel

if TYPE_CHECKING:
    from esign.models import Packet
    from esign.packets.inputs import PacketInput

# The levels createEtchPacket takes today.
ACCEPTED = (SignatureLevel.SIMPLE, SignatureLevel.ADVANCED)
# Roles that sign nothing (esign.packets.roles): no signature of their own either.
NON_SIGNING_ROLES = ("approver", "viewer")


def signature_level_of(raw: Mapping[str, Any], path: str, problems: list[Problem]) -> str:
    """The signer JSON's ``signatureLevel``, checked (absent or null: simple)."""
    value = raw.get("signatureLevel")
    if value is None:
        return SignatureLevel.SIMPLE.value
    where = f"{path}.signatureLevel"
    if value not in [level.value for level in ACCEPTED]:
        problems.append(
            Problem(where, "Must be " + " or ".join(level.value for level in ACCEPTED) + ".")
        )
        return SignatureLevel.SIMPLE.value
    if value == SignatureLevel.SIMPLE:
        return value
    if raw.get("role") in NON_SIGNING_ROLES:
        problems.append(Problem(where, f"A {raw['role']} signs nothing: only simple."))
    verify = raw.get("verify")
    phone = verify.get("phone") if isinstance(verify, Mapping) else None
    if not raw.get("email") and not phone:
        problems.append(
            Problem(
                where,
                "An advanced signer needs an email (or a phone to verify) for their "
                "certificate to name.",
            )
        )
    return str(value)


def signer_levels_create(packet: Packet, packet_input: PacketInput) -> None:
    """Keep the level of each of ``packet``'s signers whose level is not simple (in the
    transaction that stores them)."""
    wanted = {
        s.alias_id[:200]: s.signature_level
        for s in packet_input.signers
        if s.signature_level != SignatureLevel.SIMPLE
    }
    if not wanted:
        return
    SignerLevel.objects.bulk_create(
        SignerLevel(signer=signer, level=wanted[signer.alias_id])
        for signer in packet.signers.filter(alias_id__in=wanted)
    )
