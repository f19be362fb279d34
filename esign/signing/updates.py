"""The sender's values on the signing page (esign.packets.updates reads them): which one is in
force, whether the signer may change theirs, and the audit entry of a change.

A value is stamped when the signer given its field finishes, with the value in force then (the
signer's, when they may change it and did; the sender's otherwise): from then on it is in the
documents every later signer reads. Until then, the signing page of every other signer shows the
sender's value over the page (``others_prefilled``).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from core.engine.problems import Problem
from core.errors import ValidationFailed
from esign.models import Packet, PacketDocument, Signer
from esign.packets.audit import AuditAction, Client
from esign.packets.lifecycle import audit


def _prefilled(signer: Signer, documents: dict[str, PacketDocument]) -> dict[str, Any]:
    """``signer``'s fields with a sender's value, by their key "<fileId>/<fieldId>": the field
    (its entry in ``documents``, the packet's by alias) with ``fileId`` and ``fieldId``."""
    out = {}
    for ref in signer.fields:
        document = documents.get(ref["fileId"])
        if document is None:
            continue
        for field in document.fields:
            if field["id"] == ref["fieldId"] and field.get("value") is not None:
                key = f"{ref['fileId']}/{field['id']}"
                out[key] = {"fileId": ref["fileId"], "fieldId": field["id"], **field}
    return out


def prefilled_in_force(
    signer: Signer, values: dict[str, Any], prefilled: dict[str, Any]
) -> dict[str, Any]:
    """``values`` (what the signer sent at finish) with the sender's value of each of their
    ``prefilled`` fields (by key: the signer's fields that carry a ``value``) they left out; a
    signer who may not change them gets a ValidationFailed naming ``values.<key>`` for a value
    that differs from the sender's."""
    values = dict(values)
    problems = []
    for key, field in prefilled.items():
        if key not in values:
            values[key] = field["value"]
        elif not signer.allow_updates and values[key] != field["value"]:
            problems.append(
                Problem(f"values.{key}", _("The sender filled this in; it cannot be changed."))
            )
    if problems:
        raise ValidationFailed.from_problems(problems)
    return values


def value_changes_audit(
    packet: Packet,
    signer: Signer,
    values: dict[str, Any],
    client: Client,
    prefilled: dict[str, Any],
) -> None:
    """One ``signerUpdatedValue`` entry for each of the signer's ``prefilled`` values they
    changed, with the value before (the sender's) and after (in the caller's transaction)."""
    for key, field in prefilled.items():
        if key in values and values[key] != field["value"]:
            audit(
                packet=packet,
                signer=signer,
                action=AuditAction.SIGNER_UPDATED_VALUE,
                client=client,
                detail={
                    "fileId": field["fileId"],
                    "fieldId": field["fieldId"],
                    "before": field["value"],
                    "after": values[key],
                },
            )


def others_prefilled(signer: Signer) -> list[dict[str, Any]]:
    """The sender's values of the other signers' fields, not stamped yet (their signer has not
    finished), for ``signer``'s page to show over the documents."""
    documents = {d.alias_id: d for d in signer.packet.documents.all()}  # read once for all
    shown = []
    for other in signer.packet.signers.all():
        if other.pk == signer.pk or other.status in (
            Signer.Status.COMPLETED,
            Signer.Status.FORWARDED,
        ):
            continue
        shown += [
            {key: field[key] for key in ("fileId", "fieldId", "type", "page", "rect", "value")}
            for field in _prefilled(other, documents).values()
        ]
    return shown
