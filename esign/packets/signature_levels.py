"""A signer's ``signatureLevel`` (an extension, issue 51): ``simple`` (their marks drawn into the
pages, covered by the service's seal: the default), ``advanced`` (besides, their own PAdES
signature on every document, with a certificate the service's signer CA issues them for the
occasion: esign.sealing.signer_signatures) or ``qualified`` (their own PAdES signature made with
their credential at the organization's CSC v2 provider: esign.sealing.qualified). A qualified
signer signs last, alone at the packet's highest routing order: their signature covers the final
documents, and nothing is drawn into the pages after it.

Read from the signer JSON by the signer model (esign.engine.signer_model; the wire's
ValidationError, nothing stored, for anything else) and kept in a row of its own
(esign.signature_models.SignerLevel) once the packet's signers are stored.
"""

from __future__ import annotations

from typing import Any

from core.engine.problems import Problem
from core.errors import ValidationFailed
from esign.models import Packet, Signer
from esign.signature_models import SignatureLevel, SignerCertificate, SignerLevel
from esign.signature_providers import qualified_provider

# The levels createEtchPacket takes today.
ACCEPTED = (SignatureLevel.SIMPLE, SignatureLevel.ADVANCED, SignatureLevel.QUALIFIED)
# Roles that sign nothing (esign.packets.roles): no signature of their own either.
NON_SIGNING_ROLES = ("approver", "viewer")


def signer_levels_create(packet: Packet, packet_input: Any) -> None:
    """Keep the level of each of ``packet``'s signers whose level is not simple (in the
    transaction that stores them); ``packet_input``: esign.packets.inputs.PacketInput (not
    named: inputs imports this module). A qualified signer who would not sign last, or a packet of
    an organization with no CSC provider, is refused (ValidationFailed: the transaction, and
    the packet, are not stored)."""
    _check_qualified(packet, packet_input)
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


def _check_qualified(packet: Packet, packet_input: Any) -> None:
    signers = packet_input.signers
    qualified = [i for i, s in enumerate(signers) if s.signature_level == SignatureLevel.QUALIFIED]
    if not qualified:
        return
    problems: list[Problem] = []
    last = max(s.routing_order for s in signers)
    for index in qualified:
        where = f"signers.{index}.signatureLevel"
        signer = signers[index]
        alone = [s for s in signers if s.routing_order == signer.routing_order] == [signer]
        if len(qualified) > 1:
            problems.append(Problem(where, "Only one signer of a packet may be qualified."))
        elif signer.routing_order != last or not alone or signer.signing_group:
            problems.append(
                Problem(where, "A qualified signer signs last: alone at the highest routingOrder.")
            )
        elif qualified_provider(packet.organization_id) is None:
            problems.append(
                Problem(where, "No qualified signature provider is set up for this organization.")
            )
    if packet_input.merge_pdfs:
        problems.append(
            Problem(
                "mergePDFs", "Not with a qualified signer: each document carries their signature."
            )
        )
    if problems:
        raise ValidationFailed.from_problems(problems)


def signer_level(signer: Signer) -> str:
    """``signer``'s signatureLevel (``simple`` without a SignerLevel row)."""
    row = getattr(signer, "signature_level", None)
    return row.level if row is not None else SignatureLevel.SIMPLE.value


def signers_wire(packet: Packet) -> list[dict[str, Any]]:
    """Each signer's level and the certificates of their signatures, for the webhooks and
    /verify: ``[{aliasId, name, signatureLevel, certificates: [{subject, issuer, serial,
    document}]}]``, simple signers included (no certificates)."""
    rows = SignerCertificate.objects.filter(signer__packet=packet).select_related("document")
    by_signer: dict[int, list[dict[str, str]]] = {}
    for row in rows:
        by_signer.setdefault(row.signer_id, []).append(
            {
                "subject": row.subject,
                "issuer": row.issuer,
                "serial": row.serial,
                "document": row.document.title,
            }
        )
    signers = Signer.objects.filter(packet=packet).select_related("signature_level")
    wire = []
    for signer in signers.order_by("routing_order", "id"):
        wire.append(
            {
                "aliasId": signer.alias_id,
                "name": signer.name,
                "signatureLevel": signer_level(signer),
                "certificates": by_signer.get(signer.pk, []),
            }
        )
    return wire
