"""A signer's turn on a packet, from its start to its end: whose turn it is (signers of one
routing order sign in parallel, the next order waits for all of them), sending a packet (the
first turn starts), a turn starting (the signer ``sent`` and, for an email signer, an email
queued), and what the signer does on the signing page: open it or finish (sign); declining ends
the packet (esign.signing.declining).

Finishing checks what the signer adopted and typed against their fields, stamps their fields
onto the documents before any lock is taken (a PDF rewrite per document; the PDF work is
esign.engine.stamp, and each changed document is stored content-addressed, so nothing is
overwritten), then, holding the packet's row, checks that nothing changed meanwhile and makes
the stamped PDFs current with the signer's status, the audit entry and the events, in one short
transaction. Two signers of one routing group finishing at the same moment: the second one's
stamps were made on a document the first changed, so it stamps again on the new one. Once
``required`` members of a signing group signed, the others are skipped here too
(esign.packets.groups has the group's rules that the links and the events read as well).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from core.blobs import blob_delete, blob_read, blob_save
from core.engine.problems import Problem
from core.engine.template_spec import Rect
from core.errors import Conflict, ValidationFailed
from core.resources import font_library
from esign.engine.handwriting import handwriting_font_for
from esign.engine.stamp import Stamp, stamp_pdf
from esign.links.emails import signer_email_queue
from esign.links.tokens import signer_tokens_revoke
from esign.models import Packet, PacketDocument, Signer
from esign.packets import lifecycle
from esign.packets.audit import AuditAction, Client
from esign.packets.documents import HANDWRITING_FONT
from esign.packets.field_values import type_problem, value_cap
from esign.packets.groups import (
    fields_filled_by_another,
    group_signed_by,
    skipped_for_group,
    witnessed_name,
)
from esign.packets.inputs import STAMP_TYPES
from esign.packets.lifecycle import audit
from esign.packets.roles import NOT_WAITED_FOR, VIEWER
from esign.sealing.seal import packet_seal_enqueue
from esign.signing.role_turns import (
    decision_detail,
    may_read,
    viewers_due,
    viewers_finish,
)
from esign.signing.updates import prefilled_in_force, value_changes_audit

# --- whose turn it is ----------------------------------------------------------------------------


def locked(packet: Packet) -> Packet:
    """The packet's row, locked for the rest of the transaction (every change of a packet or
    of its signers holds it)."""
    return Packet.objects.select_for_update().get(pk=packet.pk)


def turn_signers(packet: Packet) -> list[Signer]:
    """The signers whose turn it is: the lowest routing order with someone still to sign (or
    approve: a viewer is never waited for, esign.packets.roles)."""
    waiting = [
        s
        for s in packet.signers.all()
        if s.status not in lifecycle.FINISHED_SIGNER and s.role not in NOT_WAITED_FOR
    ]
    if not waiting:
        return []
    lowest = min(s.routing_order for s in waiting)
    return [s for s in waiting if s.routing_order == lowest]


def is_signers_turn(signer: Signer) -> bool:
    return signer.packet.status in lifecycle.OPEN_PACKET and signer in turn_signers(signer.packet)


def notify_next(packet: Packet, *, packet_to: str | None = None) -> None:
    """Start the turn of the next routing group (in the caller's transaction), the packet moving
    to ``packet_to`` first where it moves, and of the viewers its routing order reached
    (esign.signing.role_turns). The moves are lifecycle's (one call), then the emails."""
    turn = turn_signers(packet)
    starting = [signer for signer in turn if signer.status == Signer.Status.CREATED]
    for signer in starting:
        signer.packet = packet
    lifecycle.turn_start(packet, starting, packet_to=packet_to)
    for signer in starting:
        signer_email_queue(signer=signer)
    # The viewers the routing reached (esign.signing.role_turns); most packets have none.
    waiting = packet.signers.filter(role=VIEWER, status=Signer.Status.CREATED)
    if turn and (viewers := list(waiting)):
        viewers_due(packet, viewers, turn[0].routing_order)


def packet_send(*, packet: Packet) -> Packet:
    """Send a draft: the first routing group is told it may sign."""
    with transaction.atomic():
        packet = locked(packet)
        if packet.status != Packet.Status.DRAFT:
            raise Conflict(f"Packet '{packet.eid}' was already sent.")
        if not packet.signers.exists():
            raise ValidationFailed.single("signers", "A packet needs at least one signer to send.")
        notify_next(packet, packet_to=Packet.Status.SENT)
    return packet


# --- what the signer adopts and types -----------------------------------------------------------


@dataclass(frozen=True)
class Adoption:
    """What a signer adopted: a drawn signature (PNG) or typed text, and initials."""

    drawn_png: bytes | None = None
    typed: str = ""
    initials: str = ""


def signer_fields(signer: Signer) -> list[dict[str, Any]]:
    """The signer's fields with their documents: [{fileId, fieldId, type, page, rect, ...}],
    ``fieldId`` the field's id whether the signer was given it by id or by its template alias
    (esign.packets.packet_checks.field_ids: an id before an alias). Nothing for a member of a
    signing group whose fields another member filled first (esign.packets.groups)."""
    if signer.signing_group and fields_filled_by_another(signer):
        return []
    documents = {d.alias_id: d for d in signer.packet.documents.all()}
    out = []
    for ref in signer.fields:
        document = documents.get(ref["fileId"])
        if document is None:
            continue
        by_alias = {f["alias"]: f for f in document.fields if f.get("alias")}
        by_id = {f["id"]: f for f in document.fields}
        field = by_id.get(ref["fieldId"]) or by_alias.get(ref["fieldId"])
        if field is not None:
            out.append({"fileId": document.alias_id, "fieldId": field["id"], **field})
    return out


def check_values(
    signer: Signer,
    adoption: Adoption,
    values: dict[str, Any],
    fields: list[dict[str, Any]] | None = None,
) -> None:
    """Only the signer's own typed fields are taken (what is kept on the signer is bounded by
    them), each within the length of its type; a checkbox is true or false. ``fields``: the
    signer's, when the caller read them already (signer_fields)."""
    problems = []
    typed: set[str] = set()
    for field in signer_fields(signer) if fields is None else fields:
        key = f"{field['fileId']}/{field['fieldId']}"
        if field["type"] in STAMP_TYPES:
            if field["type"] == "signature" and not (adoption.drawn_png or adoption.typed):
                problems.append(Problem("signature", _("Adopt a signature first.")))
            if field["type"] == "initial" and not (adoption.initials or adoption.typed):
                problems.append(Problem("initials", _("Adopt your initials first.")))
        elif field["type"] == "checkbox":
            typed.add(key)
            if key in values and not isinstance(values[key], bool):
                problems.append(Problem(key, _("Must be true or false.")))
        elif field["type"] != "signatureDate":
            typed.add(key)
            value = values.get(key)
            cap = value_cap(field["type"])
            if not isinstance(value, str) or not value.strip():
                problems.append(Problem(key, _("Required")))
            elif len(value) > cap:
                problems.append(Problem(key, _("At most %(count)s characters.") % {"count": cap}))
            elif (message := type_problem(field["type"], value.strip())) is not None:
                problems.append(Problem(key, message))
    # A key is echoed back in its property, so a long one is cut (the body's cap bounds them all).
    problems += [
        Problem(f"values.{key[:200]}", _("Not a field this signer fills in."))
        for key in sorted(set(values) - typed)
    ]
    if problems:
        unique = {(p.path, p.message): p for p in problems}
        raise ValidationFailed.from_problems(unique.values())


def check_attachments(signer: Signer) -> None:
    """Every required attachment field of the signer has a file (esign.signing.attachments); the
    problem names ``attachments.<field id>``."""
    if not signer.attachment_fields:
        return  # nothing to attach: no query
    attached = set(signer.attachments.values_list("field_id", flat=True))
    problems = [
        Problem(
            f"attachments.{field['id']}",
            _("Attach “{label}” to finish.").format(label=field["label"]),
        )
        for field in signer.attachment_fields or []
        if field.get("required") and field["id"] not in attached
    ]
    if problems:
        raise ValidationFailed.from_problems(problems)


# --- stamping it onto the documents -------------------------------------------------------------

DATE_FORMAT = "%Y-%m-%d"


def _rect(field: dict[str, Any]) -> Rect:
    rect = field["rect"]
    return Rect(float(rect["x"]), float(rect["y"]), float(rect["width"]), float(rect["height"]))


def _stamp(
    field: dict[str, Any], signer: Signer, adoption: Adoption, values: dict[str, Any], when: str
) -> Stamp | None:
    kind, page, rect = field["type"], int(field["page"]), _rect(field)
    key = f"{field['fileId']}/{field['id']}"
    if kind in ("signature", "initial"):
        caption = f"{signer.name}, {when}" if kind == "signature" else None
        if adoption.drawn_png is not None and kind == "signature":
            return Stamp(page, rect, kind, image_png=adoption.drawn_png, caption=caption)
        text = adoption.typed if kind == "signature" else (adoption.initials or _initials(adoption))
        return Stamp(page, rect, kind, text=text, caption=caption)
    if kind == "signatureDate":
        return Stamp(page, rect, "date", text=when[:10])
    if kind == "checkbox":
        return Stamp(page, rect, "checkbox", checked=bool(values.get(key)))
    value = values.get(key)
    if isinstance(value, str) and value.strip():
        return Stamp(page, rect, "date" if kind == "date" else "text", text=value.strip())
    return None


def _initials(adoption: Adoption) -> str:
    return "".join(word[0].upper() for word in adoption.typed.split() if word)[:4] or "X"


@dataclass(frozen=True)
class StampedDocument:
    """A document with a signer's stamps, stored, not yet the document's current PDF."""

    document_id: int
    from_sha256: str  # the current PDF it was stamped onto
    path: str
    sha256: str


def signer_stamps(
    *, signer: Signer, adoption: Adoption, values: dict[str, Any], signed_at: datetime
) -> list[StampedDocument]:
    """Stamp every field of ``signer`` onto its documents' current PDFs and store the results.

    Slow (a PDF rewrite per document): call it outside any transaction, then make the results
    current with :func:`stamps_apply` under the packet's lock.
    """
    when = signed_at.strftime(f"{DATE_FORMAT} %H:%M UTC")
    by_document: dict[str, list[Stamp]] = {}
    for field in signer_fields(signer):
        stamp = _stamp(field, signer, adoption, values, when)
        if stamp is not None:
            by_document.setdefault(field["fileId"], []).append(stamp)
    documents = {d.alias_id: d for d in signer.packet.documents.all()}
    stamped = []
    for alias, stamps in by_document.items():
        document = documents[alias]
        pdf = stamp_pdf(
            blob_read(document.current_path, document.current_sha256),
            stamps,
            fonts=font_library(),
            handwriting_font=handwriting_font_for(
                HANDWRITING_FONT, adoption.typed, adoption.initials
            ),
        )
        path, sha = blob_save(prefix=_prefix(document.packet), data=pdf)
        stamped.append(StampedDocument(document.pk, document.current_sha256, path, sha))
    return stamped


def stamps_apply(stamped: list[StampedDocument]) -> bool:
    """Make the stamped PDFs current (in the caller's transaction); False, changing nothing,
    when a document changed since it was stamped (another signer of the same group)."""
    for item in stamped:
        current = PacketDocument.objects.filter(pk=item.document_id).values_list(
            "current_sha256", flat=True
        )
        if list(current) != [item.from_sha256]:
            return False
    for item in stamped:
        PacketDocument.objects.filter(pk=item.document_id).update(
            current_path=item.path, current_sha256=item.sha256
        )
    return True


def stamps_discard(stamped: list[StampedDocument]) -> None:
    """Delete stored stamped PDFs that did not become current."""
    for item in stamped:
        if not PacketDocument.objects.filter(
            Q(current_path=item.path) | Q(prepared_path=item.path)
        ).exists():
            blob_delete(item.path)


def test_mark(pdf: bytes) -> bytes:
    """The visible test mark on every page of a test packet's document."""
    return stamp_pdf(pdf, [], fonts=font_library(), handwriting_font=None, test_mark=True)


def _prefix(packet: Packet) -> str:
    return f"packets/{packet.organization.eid}/{packet.eid}"


# --- the signer's actions -----------------------------------------------------------------------

# How often a finish stamps again because another signer of its group finished first.
STAMP_ATTEMPTS = 5


@dataclass(frozen=True)
class SigningOutcome:
    """What the signing page reports to its parent frame and the redirect URL."""

    signer: Signer
    next_signer: Signer | None
    packet: Packet


def locked_signer(signer: Signer) -> tuple[Packet, Signer]:
    """The packet's row, then the signer's, locked for the rest of the transaction: what each
    action of the signer (opening, finishing, declining) reads first."""
    packet = locked(signer.packet)
    signer = Signer.objects.select_for_update().get(pk=signer.pk)
    signer.packet = packet
    return packet, signer


def signer_check_open(signer: Signer) -> None:
    """A Conflict, in the signer's language, unless it is this signer's turn in an open packet:
    what finishing, declining and attaching a file all check first."""
    if signer.packet.status not in lifecycle.OPEN_PACKET or signer.status in (
        lifecycle.ENDED_SIGNER
    ):
        if signed := skipped_for_group(signer):  # skipped: their group's step was signed
            raise Conflict(
                gettext("{names} already signed this step for your group.").format(
                    names=", ".join(member.name for member in signed)
                )
            )
        raise Conflict(gettext("This signature request is no longer open."))
    if not is_signers_turn(signer):
        raise Conflict(gettext("Earlier signers have not finished yet."))


def signer_viewed(*, signer: Signer, client: Client) -> None:
    """The signer opened their link: audited every time; the first time in their turn they
    become ``viewed`` (and the packet ``delivered``, if nobody had the request yet)."""
    with transaction.atomic():
        packet, signer = locked_signer(signer)
        if (is_signers_turn(signer) or may_read(signer)) and lifecycle.signer_may_move(
            signer, Signer.Status.VIEWED
        ):
            lifecycle.signer_move(signer, Signer.Status.VIEWED, client=client)
            if packet.status == Packet.Status.SENT:
                lifecycle.packet_move(packet, Packet.Status.DELIVERED)
        else:
            audit(packet=packet, signer=signer, action=AuditAction.SIGNER_VIEWED, client=client)


class _Restamp(Exception):
    """A document changed between stamping and the lock: stamp again."""


def signer_complete(
    *, signer: Signer, adoption: Adoption, values: dict[str, Any], client: Client
) -> SigningOutcome:
    """The signer finishes: their fields are stamped onto the documents, the next routing group
    is notified, and the packet completes (and is queued for sealing) when nobody is left."""
    signer_check_open(signer)  # a closed request says so before any complaint about the values
    # A later member of a group signs nothing (its fields hold the first member's signature).
    # Without a group the group's rules are not read (esign.packets.groups): nobody signed first.
    values = {} if signer.signing_group and fields_filled_by_another(signer) else values
    fields = signer_fields(signer)
    # Values the sender filled in: theirs where the signer left them (esign.signing.updates).
    prefilled = {f"{f['fileId']}/{f['fieldId']}": f for f in fields if f.get("value") is not None}
    if prefilled:
        values = prefilled_in_force(signer, values, prefilled)
    check_values(signer, adoption, values, fields)
    check_attachments(signer)  # a required file not attached: said before anything is stamped
    kept = {k: v for k, v in values.items() if isinstance(v, str | bool)}
    drawn_path = ""
    if adoption.drawn_png is not None:
        drawn_path, _ = blob_save(
            prefix=f"signatures/{signer.packet.organization_id}",
            data=adoption.drawn_png,
            suffix=".png",
        )
    for _ in range(STAMP_ATTEMPTS):
        now = timezone.now()
        stamped = signer_stamps(signer=signer, adoption=adoption, values=kept, signed_at=now)
        try:
            with transaction.atomic():
                packet, signer = locked_signer(signer)
                signer_check_open(signer)
                check_attachments(signer)  # none removed meanwhile (removing locks the signer)
                if not stamps_apply(stamped):
                    raise _Restamp
                signer.values = kept
                signer.signature_path = drawn_path
                signer.signature_text = adoption.typed[:255]
                signer.initials_text = adoption.initials[:32]
                signer.completed_at = now
                lifecycle.signer_move(
                    signer,
                    Signer.Status.COMPLETED,
                    client=client,
                    detail=completion_detail(signer),
                    fields=("values", "signature_path", "signature_text", "initials_text"),
                )
                if prefilled:
                    value_changes_audit(packet, signer, kept, client, prefilled)
                _settle_group(packet, signer)
                return _after_signature(packet, signer)
        except _Restamp:
            stamps_discard(stamped)
            signer.packet.refresh_from_db()
        except BaseException:
            stamps_discard(stamped)
            if drawn_path and not Signer.objects.filter(signature_path=drawn_path).exists():
                blob_delete(drawn_path)
            raise
    raise Conflict(gettext("Other signers are signing this packet right now; try again."))


def _settle_group(packet: Packet, signer_done: Signer) -> None:
    """Once as many members of ``signer_done``'s group signed as it requires, its step is done:
    the other members are ``skipped`` (audited with who signed for the group), their links end
    and their queued emails are cancelled. Under the packet's lock, so of two members signing
    at once for the last place, the second finds itself skipped (a Conflict, nothing written)."""
    if not signer_done.signing_group:
        return  # no group, no step of the group's to settle
    signed = group_signed_by(signer_done)
    if not signed or len(signed) < signer_done.signing_group_required:
        return
    for member in packet.signers.filter(signing_group=signer_done.signing_group):
        member.packet = packet
        if not lifecycle.signer_may_move(member, Signer.Status.SKIPPED):
            continue
        signer_tokens_revoke(signer=member)
        lifecycle.signer_emails_cancel(signer=member)
        lifecycle.signer_move(member, Signer.Status.SKIPPED, detail=skip_detail(member, signed))


def _after_signature(packet: Packet, signer_done: Signer) -> SigningOutcome:
    if not turn_signers(packet):
        if viewers := list(packet.signers.filter(role=VIEWER)):
            viewers_finish(packet, viewers)  # esign.signing.role_turns
        lifecycle.packet_move(packet, Packet.Status.COMPLETED)
        packet_seal_enqueue(packet)  # the documents are sealed once, after the last stamp
        return SigningOutcome(signer=signer_done, next_signer=None, packet=packet)
    partial = None if packet.status == Packet.Status.PARTIAL else Packet.Status.PARTIAL
    notify_next(packet, packet_to=partial)
    return SigningOutcome(signer=signer_done, next_signer=turn_signers(packet)[0], packet=packet)


def completion_detail(signer: Signer) -> dict[str, Any] | None:
    """The detail of ``signer``'s signerCompleted audit entry: the group they signed for, or
    whom they witnessed (by id and name, as the packet had them), or an approver's decision."""
    if signer.role == Signer.Role.APPROVER:
        return decision_detail(signer, "approved")
    if signer.signing_group:
        return {"group": signer.signing_group}
    if signer.role == Signer.Role.WITNESS:
        return {"witnessFor": signer.witness_for, "witnessed": witnessed_name(signer)}
    return None


def skip_detail(signer: Signer, signed: list[Signer]) -> dict[str, Any]:
    """The detail of a group member's signerSkipped audit entry: who signed for the group."""
    return {
        "group": signer.signing_group,
        "signedBy": [member.name for member in signed],
        "signedByIds": [member.alias_id for member in signed],
    }
