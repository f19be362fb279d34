"""The arguments of createEtchPacket, read from their wire form into plain dataclasses.

One form from every door: GraphQL's arguments as sent (``core.graphql.arguments``), the JSON of
a createEtchPacketBatch row (esign.bulk.sends) and the MCP tool's arguments.

Every problem names the argument it is about (``files.1.fields.0.rect``,
``signers.0.fields.2``) and all problems are reported together, before anything is stored.

This module reads the packet as a whole, in order; each part has its module: the files
(``file_inputs``), the signers (``signer_inputs``), the packet's own options
(``packet_options``), how one value is read (``input_values``), the files and signers checked
together and the files once their documents are made (``packet_checks``), and the dataclasses
read into with the rows they are stored as (``input_data``). What other modules import from here
stays importable from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from core.engine.input_checks import length_problem
from core.engine.problems import Problem
from core.engine.wire_models import validate
from core.errors import ValidationFailed
from esign.engine.data_model import PacketData
from esign.engine.file_model import MAX_FILES
from esign.engine.file_model import STAMP_TYPES as STAMP_TYPES
from esign.models import Signer
from esign.packets.attachment_fields import attachment_count_problems
from esign.packets.file_inputs import file_input
from esign.packets.file_tags import SignerNames, tagged_signer_fields
from esign.packets.initials import initials_problems
from esign.packets.input_data import FileInput as FileInput
from esign.packets.input_data import PacketInput
from esign.packets.input_data import SignerInput as SignerInput
from esign.packets.input_data import SignField as SignField
from esign.packets.input_data import StoredFile as StoredFile
from esign.packets.input_data import packet_rows as packet_rows
from esign.packets.input_values import email_address, one_line
from esign.packets.packet_checks import MadeFile as MadeFile
from esign.packets.packet_checks import cross_check
from esign.packets.packet_checks import files_checked as files_checked
from esign.packets.packet_options import expiry_at as expiry_at
from esign.packets.packet_options import packet_options
from esign.packets.roles import roles_checked
from esign.packets.signer_inputs import MAX_SIGNERS, signer_input
from esign.packets.updates import updates_problems


def _list(value: Any, path: str, problems: list[Problem]) -> list[Any]:
    """A list argument: GraphQL types createEtchPacket's, but a bulk send's shape is any JSON."""
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(Problem(path, "Must be a list."))
        return []
    return value


def _payloads(data: Any, files: list[FileInput], problems: list[Problem]) -> dict[str, Any]:
    """``data``'s payloads (esign.engine.data_model.PacketData), each naming a template file of
    ``files``; a ``data`` that is no object is read as none, as before."""
    if not isinstance(data, Mapping):
        return {}
    read, found = validate(PacketData, data, prefix="data")
    problems.extend(found)
    payloads = read.payloads if read is not None else {}
    templates = {file.id for file in files if file.cast_eid is not None}
    problems.extend(
        Problem(f"data.payloads.{file_id}", "No template file has this id to fill.")
        for file_id in payloads
        if file_id not in templates
    )
    return payloads


def parse_packet_input(arguments: Mapping[str, Any]) -> PacketInput:
    """The createEtchPacket arguments, checked; ValidationFailed names every problem."""
    problems: list[Problem] = []
    raw_files = _list(arguments.get("files"), "files", problems)
    raw_signers = _list(arguments.get("signers"), "signers", problems)
    if not raw_files and "files" not in {p.path for p in problems}:
        problems.append(Problem("files", "Required"))
    if len(raw_files) > MAX_FILES:
        problems.append(Problem("files", f"At most {MAX_FILES} files."))
    if len(raw_signers) > MAX_SIGNERS:
        problems.append(Problem("signers", f"At most {MAX_SIGNERS} signers."))
    files = [
        f for i, raw in enumerate(raw_files[:MAX_FILES]) if (f := file_input(raw, i, problems))
    ]
    signers = [
        s
        for i, raw in enumerate(raw_signers[:MAX_SIGNERS])
        if (s := signer_input(raw, i, problems))
    ]
    # Signers given no fields get those their tags name (once every file read: a file refused
    # already is a problem, and the files' indexes would not be their places).
    if any(f.tagged for f in files) and len(files) == len(raw_files[:MAX_FILES]):
        names = [SignerNames(s.alias_id, s.name, bool(s.fields)) for s in signers]
        tagged = [(i, f.id, f.tagged) for i, f in enumerate(files) if f.tagged]
        for n, got in enumerate(tagged_signer_fields(tagged, names, problems)):
            signers[n] = replace(signers[n], fields=signers[n].fields or got)
    signers = roles_checked(raw_signers[:MAX_SIGNERS], signers, problems)
    initials_problems(files, signers, problems)
    updates_problems(files, signers, problems)
    cross_check(files, signers, problems)
    problems += attachment_count_problems(len(s.attachment_fields) for s in signers)
    payloads = _payloads(arguments.get("data"), files, problems)
    options = packet_options(arguments, problems)
    if problems:
        raise ValidationFailed.from_problems(problems)
    return PacketInput(
        files=tuple(files),
        signers=tuple(signers),
        payloads=payloads,
        **options,
    )


@dataclass(frozen=True)
class ForwardInput:
    """Who a signer's turn goes to (esign.signing.forwarding): the signing page's forward form, the
    sender's reassignEtchSigner and the admin's form."""

    name: str
    email: str


def parse_forward_input(name: Any, email: Any, *, email_required: bool = True) -> ForwardInput:
    """``name`` and ``email`` checked as a signer's are (one line, an address that fits);
    ValidationFailed names ``name`` and ``email``."""
    problems: list[Problem] = []
    text = one_line(name, "name", problems)
    if not text and not any(p.path == "name" for p in problems):
        problems.append(Problem("name", "Required"))
    elif problem := length_problem(text, Signer._meta.get_field("name")):
        problems.append(Problem("name", problem))
    address = email_address(email, "email", problems)
    if email_required and not address and not any(p.path == "email" for p in problems):
        problems.append(Problem("email", "Required"))
    if problems:
        raise ValidationFailed.from_problems(problems)
    return ForwardInput(name=text, email=address)
