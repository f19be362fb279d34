"""How a signer of createEtchPacket is read with esign.engine.signer_model's `SignerModel`: the
rules that span its keys (`signer_rules`), today's order of its problems (`PROBLEM_ORDER`) and
what a refused key leaves for the packet's later checks (`read_signer`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from core.engine.problems import Problem
from core.engine.wire_models import validate
from esign.engine.attachment_model import MAX_BYTES, read_attachments
from esign.engine.signer_model import (
    NON_SIGNING_ROLES,
    ROLES,
    SIGNATURE_LEVELS,
    SignerModel,
    stripped,
)

# The keys whose check reads another key (validated beside it when keys are read one by one).
READS_ALSO = {"initialsPosition": ("initialsOnEveryPage",)}


# Where each problem of a signer comes, in today's order: a key's own problems, and those of a
# rule that spans keys (the slots ending in "!").
PROBLEM_ORDER = (
    *("name", "email", "name!", "signerType", "email!", "routingOrder", "signatureMode"),
    *("redirectURL", "fields", "language", "signatureLevel", "verify", "group", "role"),
    *("witnessFor", "attachments", "allowForward", "allowUpdates", "initialsOnEveryPage"),
    "initialsPosition",
)


def signer_rules(raw: Mapping[str, Any], prefix: str) -> dict[str, list[Problem]]:
    """What spans a signer's keys, by slot of `PROBLEM_ORDER`; read from the object as sent,
    so that a key refused on its own does not hide another's problem."""
    found: dict[str, list[Problem]] = {}

    def add(slot: str, key: str, message: str) -> None:
        found.setdefault(slot, []).append(Problem(f"{prefix}.{key}", message))

    signer_type = raw.get("signerType") or "email"
    email = stripped(raw.get("email"))
    if not stripped(raw.get("name")):
        add("name!", "name", "Required")
    if signer_type == "email" and not email:
        add("email!", "email", "Required for an email signer.")
    verify = raw.get("verify")
    method = verify.get("method") if isinstance(verify, Mapping) else None
    if method == "email" and not email:
        add("verify", "verify.method", "An email code needs the signer's email.")
    if method == "integrator" and signer_type != "embedded":
        add("verify", "verify.method", "Only an embedded signer may be integrator.")
    level = raw.get("signatureLevel")
    if level in SIGNATURE_LEVELS and level != "simple":
        # A signature of their own (esign.packets.signature_levels) names its signer.
        if raw.get("role") in NON_SIGNING_ROLES:
            add("signatureLevel", "signatureLevel", f"A {raw['role']} signs nothing: only simple.")
        phone = verify.get("phone") if isinstance(verify, Mapping) else None
        if not raw.get("email") and not phone:
            add(
                "signatureLevel",
                "signatureLevel",
                f"An {level} signer needs an email (or a phone to verify) for their certificate "
                "to name.",
            )
    role, witness_for = raw.get("role") or "signer", raw.get("witnessFor")
    if role in ROLES and role != "witness" and witness_for is not None:
        add("role", "witnessFor", 'Only for a signer of role "witness".')
    if role == "witness" and not stripped(witness_for):
        add("role", "witnessFor", "Required: the id of the signer witnessed.")
    if raw.get("allowForward") is True and signer_type == "embedded":
        add(
            "allowForward",
            "allowForward",
            "An embedded signer cannot forward from the signing page: reassign them with "
            "reassignEtchSigner.",
        )
    return found


def read_signer(
    raw: Mapping[str, Any], prefix: str, context: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, list[Problem]]]:
    """``raw`` checked against `SignerModel`: the value of each key (a key refused keeps its
    default, ``fields`` the references that are good and ``attachments`` the fields counted
    against the caps, as the later checks of the packet read them) and the problems by slot of
    `PROBLEM_ORDER`, `signer_rules`' included."""
    found = signer_rules(raw, prefix)
    try:
        model = SignerModel.model_validate(raw, context=dict(context))
        return dict(model), found
    except ValidationError:
        pass
    values = dict(SignerModel.model_construct())
    for name, field in SignerModel.model_fields.items():
        key = str(field.alias)
        if key not in raw:
            continue
        data = {other: raw[other] for other in READS_ALSO.get(key, ()) if other in raw}
        one, problems = validate(
            SignerModel, {**data, key: raw[key]}, prefix=prefix, context=context
        )
        if one is not None:
            values[name] = getattr(one, name)
            continue
        for problem in problems:
            if problem.path.removeprefix(f"{prefix}.").split(".")[0] == key:
                found.setdefault(key, []).append(problem)
        if name == "fields" and isinstance(raw[key], list):
            values[name] = [
                good.fields[0]
                for item in raw[key]
                if (good := validate(SignerModel, {key: [item]}, context=context)[0])
            ]
        if name == "attachments":
            # A field refused on a key other than its type or id still counts (the signer's
            # and the packet's caps, a role's check), as read_attachments reads it.
            values[name] = read_attachments(raw[key], key, context[MAX_BYTES])[0]
    return values, found
