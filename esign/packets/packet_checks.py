"""createEtchPacket's files and signers checked together (esign.packets.inputs): unique ids,
each signer's field on a file that has it and given to one signer (or one signing group), a
signing group's members one routing step, a witness after the signer witnessed and on their
pages; and, once the files' documents are made (esign.sending.packets), each template's file
with its template's signer fields and every field on a page its document has
(:func:`files_checked`).

Every problem names the argument it is about (``signers.0.fields.2``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from core.engine.problems import Problem
from core.engine.template_spec import TemplateSpec
from core.errors import ValidationFailed
from esign.packets.input_data import FileInput, PacketInput, SignerInput, SignField

# A template's signer fields as fields of a packet's document: the same types, but the signer's
# name, ``signerName`` in a template (where ``fullName`` is a value of fill data), is the packet's
# ``fullName`` (the signing page offers the signer's name in it).
TEMPLATE_SIGNER_TYPES = {
    "signature": "signature",
    "initial": "initial",
    "signatureDate": "signatureDate",
    "signerName": "fullName",
}


def field_ids(fields: Iterable[SignField]) -> dict[str, str]:
    """The ids a signer may name a file's fields by, to the field's id: each id, and a template
    field's alias where no field has that id."""
    ids = {f.id: f.id for f in fields}
    return {f.alias: f.id for f in fields if f.alias} | ids


def cross_check(
    files: list[FileInput],
    signers: list[SignerInput],
    problems: list[Problem],
    *,
    templates_read: bool = False,
) -> None:
    """Files and signers that agree: unique ids, each signer field on a file that has it, no
    field given to two signers. Until ``templates_read``, a template file's fields are only those
    given in ``files`` (its template's signer fields are added when it is read)."""
    by_id = {f.id: f for f in files}
    if len(by_id) != len(files):
        problems.append(Problem("files", "File ids must be unique."))
    aliases = [s.alias_id for s in signers]
    if len(set(aliases)) != len(aliases):
        problems.append(Problem("signers", "Signer ids must be unique."))
    taken: dict[tuple[str, str], str] = {}
    # Members of one signing group share their fields (whoever signs fills them).
    group_of = {s.alias_id: s.signing_group for s in signers}
    for index, signer in enumerate(signers):
        for n, (file_id, field_id) in enumerate(signer.fields):
            where = f"signers.{index}.fields.{n}"
            document = by_id.get(file_id)
            if document is None:
                problems.append(Problem(f"{where}.fileId", f"No file has the id {file_id!r}."))
            elif (resolved := field_ids(document.fields).get(field_id)) is None:
                if document.cast_eid is None:
                    problems.append(
                        Problem(f"{where}.fieldId", f"File {file_id!r} has no field {field_id!r}.")
                    )
                elif templates_read:
                    problems.append(
                        Problem(
                            f"{where}.fieldId",
                            f"File {file_id!r} has no field {field_id!r} for a signer: give the "
                            "id of one of its template's signature, initial, signatureDate or "
                            "signerName fields, or a field of its own.",
                        )
                    )
                # else: one of its template's fields, perhaps (checked when the template is read)
            elif (file_id, resolved) in taken and not (
                signer.signing_group
                and group_of[taken[(file_id, resolved)]] == signer.signing_group
            ):
                problems.append(
                    Problem(
                        where,
                        f"The field is already given to signer {taken[(file_id, resolved)]!r}.",
                    )
                )
            else:
                taken.setdefault((file_id, resolved), signer.alias_id)
    _check_groups(signers, problems)
    _check_witnesses(by_id, signers, problems)


def _check_groups(signers: list[SignerInput], problems: list[Problem]) -> None:
    """The members of each signing group sign one routing step: the same routing order, the
    same fields and the same ``required``, at most their number; a witness is in no group."""
    first: dict[str, tuple[int, SignerInput]] = {}
    members: dict[str, int] = {}
    for signer in signers:
        if signer.signing_group:
            members[signer.signing_group] = members.get(signer.signing_group, 0) + 1
    for index, signer in enumerate(signers):
        group = signer.signing_group
        if not group:
            continue
        path = f"signers.{index}"
        if signer.role == "witness":
            problems.append(Problem(f"{path}.group", "A witness cannot be in a signing group."))
        if group not in first:
            first[group] = (index, signer)
            if signer.signing_group_required > members[group]:
                problems.append(
                    Problem(
                        f"{path}.group.required",
                        f"Group {group!r} has {members[group]} member(s): required must be "
                        f"from 1 to {members[group]}.",
                    )
                )
            continue
        _, lead = first[group]
        if signer.routing_order != lead.routing_order:
            problems.append(
                Problem(
                    f"{path}.routingOrder",
                    f"The members of group {group!r} sign in one routing step: give "
                    f"{lead.routing_order}, as signer {lead.alias_id!r}.",
                )
            )
        if set(signer.fields) != set(lead.fields):
            problems.append(
                Problem(
                    f"{path}.fields",
                    f"The members of group {group!r} are given the same fields as signer "
                    f"{lead.alias_id!r} (whoever signs fills them).",
                )
            )
        if signer.signing_group_required != lead.signing_group_required:
            problems.append(
                Problem(
                    f"{path}.group.required",
                    f"The members of group {group!r} give the same required as signer "
                    f"{lead.alias_id!r} ({lead.signing_group_required}).",
                )
            )


def _field_pages(
    files: Mapping[str, FileInput], signer: SignerInput
) -> list[tuple[str, int]] | None:
    """The (file id, page) of each of ``signer``'s fields; None while one is not known yet (a
    template's field, before the template is read)."""
    pages = []
    for file_id, field_id in signer.fields:
        document = files.get(file_id)
        resolved = field_ids(document.fields).get(field_id) if document else None
        if document is None or resolved is None:
            return None
        pages.append((file_id, next(f.page for f in document.fields if f.id == resolved)))
    return pages


def _check_witnesses(
    files: Mapping[str, FileInput], signers: list[SignerInput], problems: list[Problem]
) -> None:
    """A witness names another signer (``witnessFor``: not a witness, not in a group), signs
    after them (a greater routing order) and has their fields on the pages of that signer's
    fields (a template's fields are known, and checked, once it is read)."""
    by_alias = {s.alias_id: s for s in signers}
    for index, signer in enumerate(signers):
        if signer.role != "witness":
            continue
        path = f"signers.{index}"
        witnessed = by_alias.get(signer.witness_for)
        if witnessed is None:
            problems.append(
                Problem(f"{path}.witnessFor", f"No signer has the id {signer.witness_for!r}.")
            )
            continue
        if witnessed is signer:
            problems.append(Problem(f"{path}.witnessFor", "A signer cannot witness themselves."))
            continue
        if witnessed.role != "signer" or witnessed.signing_group:
            problems.append(
                Problem(
                    f"{path}.witnessFor",
                    f"Signer {witnessed.alias_id!r} cannot be witnessed: name a signer who is "
                    "neither a witness, an approver or a viewer nor in a signing group.",
                )
            )
            continue
        if signer.routing_order <= witnessed.routing_order:
            problems.append(
                Problem(
                    f"{path}.routingOrder",
                    f"A witness signs after the signer witnessed: give a routing order greater "
                    f"than {witnessed.routing_order} (signer {witnessed.alias_id!r}'s).",
                )
            )
        own, theirs = _field_pages(files, signer), _field_pages(files, witnessed)
        if own is None or theirs is None:
            continue  # a template's field: checked once its template is read
        for n, where in enumerate(own):
            if where not in theirs:
                problems.append(
                    Problem(
                        f"{path}.fields.{n}",
                        f"A witness signs on the pages of the fields of signer "
                        f"{witnessed.alias_id!r}: file {where[0]!r} page {where[1]} has none.",
                    )
                )


def _with_template_fields(
    file: FileInput, template: TemplateSpec, pages: int, index: int
) -> FileInput:
    """``file`` (from ``castEid``) with its template's signer fields (signature, initial,
    signatureDate, signerName) after its own fields, by the template's field ids (and aliases),
    which the signers' ``fieldId`` name; an id given in ``files[].fields`` too is refused. They sit
    on the template's pages, so a payload that repeats pages (the document, of ``pages`` pages, no
    longer has the template's pages) is refused."""
    signed = [spec for spec in template.fields if spec.is_signer]
    if signed and pages != len(template.pages):
        raise ValidationFailed.single(
            f"data.payloads.{file.id}",
            f"The template has signer fields on its {len(template.pages)} page(s): a payload "
            f"that repeats pages ({pages} here) cannot be signed.",
        )
    own = {f.id: n for n, f in enumerate(file.fields)}
    added: list[SignField] = []
    problems: list[Problem] = []
    for spec in signed:
        kind = TEMPLATE_SIGNER_TYPES.get(spec.type)
        if kind is None:
            continue
        if spec.id in own:
            problems.append(
                Problem(
                    f"files.{index}.fields.{own[spec.id]}.id",
                    f"The template has a field {spec.id!r} already: use another id.",
                )
            )
            continue
        alias = spec.alias if spec.alias != spec.id else ""
        added.append(SignField(id=spec.id, type=kind, page=spec.page, rect=spec.rect, alias=alias))
    if problems:
        raise ValidationFailed.from_problems(problems)
    return replace(file, fields=(*file.fields, *added))


def _check_fields_fit(file: FileInput, pages: int, index: int) -> None:
    problems = [
        Problem(f"files.{index}.fields.{n}.pageNum", f"The document has {pages} pages.")
        for n, field in enumerate(file.fields)
        if field.page >= pages
    ]
    if problems:
        raise ValidationFailed.from_problems(problems)


@dataclass(frozen=True)
class MadeFile:
    """What a file's document turned out to be once made (esign.sending.packets): its page count,
    and for a template's file the template's spec (its signer fields)."""

    pages: int
    template: TemplateSpec | None = None


def files_checked(packet_input: PacketInput, made: Sequence[MadeFile]) -> list[FileInput]:
    """The packet's files once their documents are made (``made``, one per file, in order): each
    template file with its template's signer fields, every field on a page its document has, and
    each signer's ``fieldId`` naming a field of its file (``signers.N.fields.M.fieldId``).
    ValidationFailed names the problems of the first file that has any, else the signers'."""
    files = []
    for index, (file, document) in enumerate(zip(packet_input.files, made, strict=True)):
        if document.template is not None:
            file = _with_template_fields(file, document.template, document.pages, index)
        _check_fields_fit(file, document.pages, index)
        files.append(file)
    problems: list[Problem] = []
    cross_check(files, list(packet_input.signers), problems, templates_read=True)
    if problems:
        raise ValidationFailed.from_problems(problems)
    return files
