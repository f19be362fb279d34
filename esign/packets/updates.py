"""Values the sender fills in for a signer, and whether the signer may change them (the hosted
API's ``allowUpdates``, docs/esign.md).

A typed field of a file (``files[].fields[]``: shortText, longText, text, fullName, email, date,
checkbox) may carry ``value``, the sender's: it is given to one signer (their ``fields``), shown to
every signer until that signer finishes, and stamped then with the value in force. Whether that
signer may change it on the signing page: their own ``allowUpdates`` (signer JSON, true or
false), else the packet's ``allowUpdates`` (createEtchPacket's Boolean, which both published
clients know). A change is in the audit trail with the values before and after
(esign.signing.updates).

Read here before anything is stored: the value by its field's type (esign.packets.field_values,
the signer's own rules), the signer's flag, and that every prefilled field has its signer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.engine.problems import Problem
from esign.packets.field_values import type_problem, value_cap

# The types a value may be filled in for (a signature, initials or the date of signing are the
# signer's own).
PREFILLED_TYPES = frozenset({"shortText", "longText", "text", "fullName", "email", "date"})


def prefilled_value(item: Mapping[str, Any], kind: Any, where: str, problems: list[Problem]) -> Any:
    """A field's ``value`` (None without one): text for the text types, within their length
    and shape, true or false for a checkbox."""
    value = item.get("value")
    if value is None:
        return None
    path = f"{where}.value"
    if kind == "checkbox":
        if not isinstance(value, bool):
            problems.append(Problem(path, "Must be true or false for a checkbox."))
            return None
        return value
    if kind not in PREFILLED_TYPES:
        problems.append(
            Problem(path, "Only a field the signer types in (or a checkbox) takes a value.")
        )
        return None
    if not isinstance(value, str) or not value.strip():
        problems.append(Problem(path, "Must be text, not empty."))
        return None
    cap = value_cap(str(kind))
    if len(value) > cap:
        problems.append(Problem(path, f"At most {cap} characters."))
        return None
    if (problem := type_problem(str(kind), value.strip())) is not None:
        problems.append(Problem(path, problem))
        return None
    return value.strip()


def updates_problems(files: Sequence[Any], signers: Sequence[Any], problems: list[Problem]) -> None:
    """Every field with a value is given to a signer (who may change it, or stamps it as it
    is). ``files`` and ``signers``: esign.packets.inputs' FileInput and SignerInput, typed
    loosely as the parser imports this module; a template's own fields are read later and take
    no value."""
    given = {(file_id, field_id) for s in signers for file_id, field_id in s.fields}
    for index, file in enumerate(files):
        for n, field in enumerate(file.fields):
            if field.value is None or (file.id, field.id) in given:
                continue
            problems.append(
                Problem(
                    f"files.{index}.fields.{n}.value",
                    "A field with a value is given to a signer (signers[].fields): the one who "
                    "may change it when allowUpdates lets them, or whose finish stamps it.",
                )
            )
