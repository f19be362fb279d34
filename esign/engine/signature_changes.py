"""What followed a signature's revision, for its report (esign.engine.verify_checks): pyHanko's
difference analysis first; where it finds form fields filled in and they are only the fields of
the signatures and document timestamps made later, no change; where it gives up (a change it
cannot explain, or an error), our analysis of each later revision decides
(esign.engine.revision_changes).

Pure Python (no Django).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.diff_analysis import DEFAULT_DIFF_POLICY, DiffResult, ModificationLevel
from pyhanko.sign.fields import MDPPerm
from pyhanko.sign.validation import EmbeddedPdfSignature
from pyhanko.sign.validation.status import SignatureCoverageLevel

from esign.engine.revision_changes import (
    ANNOTATION,
    FORM,
    OTHER,
    PAGES,
    REPLACED,
    SIGNATURE,
    UNKNOWN,
    VALIDATION,
    revision_changes,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Modifications:
    """What followed a signature's revision, as pyHanko's modification levels: ``level`` None
    when it could not be analysed; ``docmdp_ok`` whether a certification's permissions (DocMDP
    /P) allow it (as pyHanko decides it: nothing beyond annotations ever is); ``pages`` when
    pages were added, removed or replaced; ``own`` when our analysis decided (pyHanko's gave up):
    then ANNOTATIONS means annotations and nothing else."""

    level: ModificationLevel | None
    docmdp_ok: bool | None
    pages: bool = False
    own: bool = False
    signed_through: int = -1  # the last revision the signature covers


_LEVEL_OF_KIND = {
    VALIDATION: ModificationLevel.LTA_UPDATES,
    SIGNATURE: ModificationLevel.FORM_FILLING,
    FORM: ModificationLevel.FORM_FILLING,
    ANNOTATION: ModificationLevel.ANNOTATIONS,
    OTHER: ModificationLevel.OTHER,
    PAGES: ModificationLevel.OTHER,
    REPLACED: ModificationLevel.OTHER,
}


class Revisions:
    """The later revisions of one file, each analysed once (`revision_changes`)."""

    def __init__(self, reader: PdfFileReader) -> None:
        self.reader = reader
        self._kinds: dict[int, frozenset[str]] = {}

    def signed_prefix(self, embedded: EmbeddedPdfSignature) -> int | None:
        """The last revision ``embedded`` covers when it covers whole revisions and nothing
        else: its own (pyHanko's ENTIRE_REVISION), or, in a linearized file (whose first-page
        cross-reference section pyHanko counts as a revision of its own, after the main one), the
        revisions whose sections all lie in the bytes it covers, up to an %%EOF, all later ones
        after them. None when it covers something else."""
        coverage = embedded.evaluate_signature_coverage()
        if coverage == SignatureCoverageLevel.ENTIRE_REVISION:
            return int(embedded.signed_revision)
        if coverage != SignatureCoverageLevel.CONTIGUOUS_BLOCK_FROM_START:
            return None
        byte_range = [int(x) for x in embedded.sig_object["/ByteRange"]]
        end = byte_range[2] + byte_range[3]
        xrefs = self.reader.xrefs
        starts = [
            xrefs.get_xref_container_info(k).start_location for k in range(xrefs.total_revisions)
        ]
        inside = [k for k, start in enumerate(starts) if start < end]
        if len(inside) < 2 or inside != list(range(len(inside))):
            return None  # not a linearized file's two sections, or a later one among them
        stream = self.reader.stream
        if end > stream.seek(0, 2):
            return None  # a byte range past the end of the file
        stream.seek(max(0, end - 16))
        tail = stream.read(end - max(0, end - 16))
        if not tail.rstrip(b"\r\n \t\x00").endswith(b"%%EOF"):
            return None
        if inside[-1] < embedded.signed_revision:
            return None  # its own dictionary written again after the bytes it covers
        return inside[-1]

    def kinds_after(self, revision: int) -> frozenset[str]:
        kinds: set[str] = set()
        for later in range(revision + 1, self.reader.xrefs.total_revisions):
            if later not in self._kinds:
                self._kinds[later] = revision_changes(self.reader, later)
            kinds |= self._kinds[later]
        return frozenset(kinds)

    def modifications(
        self, embedded: EmbeddedPdfSignature, signed_later: frozenset[str]
    ) -> Modifications:
        """What followed ``embedded``'s revision (which it covers whole, and not the file).
        pyHanko's analysis first; where it finds form fields filled in, and they are the fields
        of the signatures and document timestamps made later (``signed_later``), those are no
        change. Where it gives up (a change it cannot explain, or an error), ours decides."""
        try:
            permission = embedded.docmdp_level
        except Exception:  # noqa: BLE001 - an unreadable /Reference: no certification
            permission = None
        through = self.signed_prefix(embedded)
        if through is None:
            return Modifications(None, None, signed_through=-1)
        diff = None
        kinds = self.kinds_after(through)
        # Later revisions with nothing but validation data and signatures (our analysis, once per
        # revision for the whole file): pyHanko's, once per signature and later revision (160
        # revision pairs, 3 CPU-seconds, for 24 signatures), would only say so (issue 47, item 9).
        if through == embedded.signed_revision and not kinds <= _VALIDATION_AND_SIGNATURES:
            try:
                diff = embedded.evaluate_modifications(DEFAULT_DIFF_POLICY)
            except MemoryError:
                raise
            except Exception as error:  # noqa: BLE001 - pyHanko's analysis failed: ours decides
                logger.info("verify: difference analysis failed (%s)", type(error).__name__)
        if isinstance(diff, DiffResult):
            level = diff.modification_level
            ok = _docmdp_ok(level, permission)
            if level == ModificationLevel.FORM_FILLING and diff.changed_form_fields <= signed_later:
                level = ModificationLevel.LTA_UPDATES  # later signatures only
            if REPLACED in kinds:
                # a field's appearance replaced, not its value: pyHanko takes it for filling
                level, ok = ModificationLevel.OTHER, False
            return Modifications(level, ok, signed_through=through)
        if UNKNOWN in kinds:
            return Modifications(None, None, own=True, signed_through=through)
        worst = max((_LEVEL_OF_KIND[k] for k in kinds), default=ModificationLevel.NONE)
        shown = max(
            (_LEVEL_OF_KIND[k] for k in kinds if k != SIGNATURE),
            default=ModificationLevel.NONE,
        )
        return Modifications(
            shown,
            _docmdp_ok(worst, permission),
            pages=PAGES in kinds,
            own=True,
            signed_through=through,
        )


_VALIDATION_AND_SIGNATURES = frozenset({VALIDATION, SIGNATURE})


def _docmdp_ok(level: ModificationLevel, permission: MDPPerm | None) -> bool:
    return not (
        level == ModificationLevel.OTHER
        or (permission is not None and level.value > permission.value)
    )
