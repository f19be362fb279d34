"""Initials on every page (an extension of the signer JSON, docs/esign.md): reading the option.

A signer's ``initialsOnEveryPage`` (``true``: every document; or a list of file ids) gives them an
initials field on each page of those documents, added to the documents' fields once their pages
are known (esign.sending.initials), so the signing page's guide stops at each and one adopted set of
initials fills them all, as any initials field. Where each one sits: ``initialsPosition``
(``{x, y, width, height}`` in PDF points from the page's lower-left corner, as a field's rect), else
the document's template's own initials field (its rect, on every page), else the page's
bottom-right corner. A page where the signer already has an initials field keeps that one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.engine.problems import Problem
from core.engine.template_spec import Rect
from esign.packets.input_values import is_number

ALL_FILES = "*"  # initialsOnEveryPage: true


def initials_option(raw: Mapping[str, Any], path: str, problems: list[Problem]) -> dict[str, Any]:
    """A signer's ``initialsOnEveryPage`` and ``initialsPosition``, as SignerInput's
    ``initials_files`` (file ids, or ALL_FILES) and ``initials_position``; the file ids are checked
    against the files in :func:`initials_problems`."""
    wanted, position = raw.get("initialsOnEveryPage"), raw.get("initialsPosition")
    out: dict[str, Any] = {}
    if wanted is None or wanted is False:
        files: tuple[str, ...] = ()
    elif wanted is True:
        files = (ALL_FILES,)
    elif (
        isinstance(wanted, list)
        and wanted
        and all(isinstance(item, str) and item.strip() for item in wanted)
    ):
        files = tuple(dict.fromkeys(item.strip() for item in wanted))
    else:
        problems.append(
            Problem(
                f"{path}.initialsOnEveryPage",
                "Must be true, false or a list of file ids.",
            )
        )
        files = ()
    out["initials_files"] = files
    if position is None:
        return out
    if not files:
        problems.append(Problem(f"{path}.initialsPosition", "Only with initialsOnEveryPage."))
        return out
    if not isinstance(position, Mapping) or not all(
        is_number(position.get(k)) for k in ("x", "y", "width", "height")
    ):
        problems.append(
            Problem(f"{path}.initialsPosition", "Must be {x, y, width, height} in points.")
        )
        return out
    if position["width"] <= 0 or position["height"] <= 0 or position["x"] < 0 or position["y"] < 0:
        problems.append(
            Problem(
                f"{path}.initialsPosition",
                "x and y must be 0 or more, width and height positive.",
            )
        )
        return out
    out["initials_position"] = Rect(
        float(position["x"]),
        float(position["y"]),
        float(position["width"]),
        float(position["height"]),
    )
    return out


def initials_problems(
    files: Sequence[Any], signers: Sequence[Any], problems: list[Problem]
) -> None:
    """Each file id a signer's initialsOnEveryPage names is one of the packet's files (``files``
    and ``signers``: esign.packets.inputs' FileInput and SignerInput, typed loosely as the parser
    imports this module); a member of a signing group has none."""
    ids = {f.id for f in files}
    for index, signer in enumerate(signers):
        if signer.initials_files and signer.signing_group:
            problems.append(
                Problem(
                    f"signers.{index}.initialsOnEveryPage",
                    "Not for a member of a signing group (whoever signs first fills its fields).",
                )
            )
        for n, file_id in enumerate(signer.initials_files):
            if file_id != ALL_FILES and file_id not in ids:
                problems.append(
                    Problem(
                        f"signers.{index}.initialsOnEveryPage.{n}",
                        f"No file has the id {file_id!r}.",
                    )
                )
