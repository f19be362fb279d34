"""Initials on every page (an extension of the signer JSON, docs/esign.md): the files it names
checked against the packet's (the option is read by the signer model, esign.engine.signer_model).

A signer's ``initialsOnEveryPage`` (``true``: every document; or a list of file ids) gives them an
initials field on each page of those documents, added to the documents' fields once their pages
are known (esign.sending.initials), so the signing page's guide stops at each and one adopted set of
initials fills them all, as any initials field. Where each one sits: ``initialsPosition``
(``{x, y, width, height}`` in PDF points from the page's lower-left corner, as a field's rect), else
the document's template's own initials field (its rect, on every page), else the page's
bottom-right corner. A page where the signer already has an initials field keeps that one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.engine.problems import Problem

ALL_FILES = "*"  # initialsOnEveryPage: true


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
