"""What changed in a signed file after each signature (esign.engine.verify_checks's `Checker`
takes these checks from `ChangesAfterSigning`): later revisions, besides long-term validation
data and later signatures, by pyHanko's analysis (ours where it gives up), what a certification
or an approval allows, the document information, and bytes after the end of the file.
Pure Python (no Django)."""

from __future__ import annotations

from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.diff_analysis import ModificationLevel
from pyhanko.sign.fields import MDPPerm
from pyhanko.sign.validation import (
    EmbeddedPdfSignature,
)
from pyhanko.sign.validation.status import SignatureCoverageLevel

from esign.engine.signature_changes import Revisions
from esign.engine.verify_report import (
    ALLOWED_ANNOTATIONS,
    ALLOWED_FORM_FILLING,
    APPENDED_BYTES,
    CHANGED_ANNOTATIONS,
    CHANGED_CONTENT,
    CHANGED_FORM,
    CHANGED_METADATA,
    CHANGED_PAGES,
    CHANGES_UNKNOWN,
    Finding,
)

# Changes after a signature, by pyHanko's modification level of the later revisions.
_CHANGE_OF_LEVEL = {
    ModificationLevel.FORM_FILLING: (
        CHANGED_FORM,
        "Form fields were filled in or signatures added after it was signed.",
    ),
    ModificationLevel.ANNOTATIONS: (
        CHANGED_ANNOTATIONS,
        "Comments, drawings or other annotations were added or changed after it was signed.",
    ),
    ModificationLevel.OTHER: (
        CHANGED_CONTENT,
        "The document's content was changed after it was signed.",
    ),
}


def appended_bytes_of(pdf: bytes, reader: PdfFileReader) -> int:
    """How many bytes follow the end of the file's last revision (the %%EOF after the xref
    section that ends furthest into the file: in a linearized file the newest section is near
    the start) that are not whitespace: a tail no signature and no document timestamp covers,
    whatever it holds (another %%EOF included)."""
    xref_end = 0
    try:
        xrefs = reader.xrefs
        for revision in range(xrefs.total_revisions):
            end = xrefs.get_xref_container_info(revision).end_location
            if isinstance(end, int):
                xref_end = max(xref_end, end)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - without the revisions' bounds: from the last %%EOF
        xref_end = 0
    end = pdf.find(b"%%EOF", xref_end) if xref_end else pdf.rfind(b"%%EOF")
    if end < 0:
        return 0
    return len(pdf[end + len(b"%%EOF") :].strip(b"\x00\t\n\x0c\r "))


class ChangesAfterSigning:
    """The checks of what follows a signature's revision; a `Checker` sets what they read."""

    reader: PdfFileReader
    revisions: Revisions
    signed_fields: list[tuple[str, int]]
    appended_bytes: int

    def changes_after(self, embedded: EmbeddedPdfSignature, status: object) -> list[Finding]:
        """What follows the revision of ``embedded`` besides long-term validation data and later
        signatures (esign.engine.signature_changes: pyHanko's analysis, ours where it gives up)."""
        coverage = getattr(status, "coverage", None)
        findings: list[Finding] = []
        modifications = None
        if coverage in (
            SignatureCoverageLevel.ENTIRE_REVISION,
            SignatureCoverageLevel.CONTIGUOUS_BLOCK_FROM_START,  # a linearized file's
        ):
            modifications = self.revisions.modifications(
                embedded,
                frozenset(n for n, r in self.signed_fields if r > embedded.signed_revision),
            )
        if coverage == SignatureCoverageLevel.ENTIRE_FILE:
            pass
        elif modifications is None or modifications.signed_through < 0:
            findings.append(
                Finding(
                    CHANGES_UNKNOWN,
                    "The signature does not cover its own revision: what it signed is unclear.",
                )
            )
        else:
            level = modifications.level
            allowed = self._allowed_by_certification(embedded, modifications, level)
            if allowed is not None:
                findings.append(allowed)
            elif level is None:
                findings.append(
                    Finding(
                        CHANGES_UNKNOWN,
                        "The file has later revisions that could not be analysed.",
                    )
                )
            elif modifications.pages:
                findings.append(
                    Finding(
                        CHANGED_PAGES,
                        "Pages were added, removed or replaced after it was signed.",
                    )
                )
            elif level in _CHANGE_OF_LEVEL:
                findings.append(Finding(*_CHANGE_OF_LEVEL[level]))
            if (
                allowed is None
                and modifications.docmdp_ok is False
                and level not in _CHANGE_OF_LEVEL
                and not modifications.pages
            ):
                findings.append(
                    Finding(
                        CHANGED_CONTENT,
                        "The document was changed after it was signed in a way its "
                        "certification does not permit.",
                    )
                )
            if self._info_changed_after(modifications.signed_through):
                findings.append(
                    Finding(
                        CHANGED_METADATA,
                        "The document's information (title, author, subject...) was changed "
                        "after it was signed.",
                    )
                )
        if self.appended_bytes:
            findings.append(
                Finding(
                    APPENDED_BYTES,
                    f"{self.appended_bytes:,} bytes were added after the end of the file, where "
                    "no signature covers them.",
                )
            )
        return findings

    def _allowed_by_certification(
        self, embedded: EmbeddedPdfSignature, status: object, level: object
    ) -> Finding | None:
        """The notice for changes after a signature that it allows: after an ordinary approval
        signature (no certification), form filling (and signing) and annotations, as DSS (a
        warning only) and PDF readers allow them; after a certification, what its permissions
        (DocMDP /P) allow: form filling under P=2 and P=3, annotations under P=3. None when
        there are none or they are not allowed. pyHanko classifies form filling; added
        annotations it cannot tell from any other change (0.38), so those are checked here
        (`_only_annotations_added`)."""
        try:
            permission = embedded.docmdp_level
        except Exception:  # noqa: BLE001 - an unreadable /Reference: nothing is shown allowed
            return None
        certified = permission is not None and getattr(embedded, "is_certification", True)
        if not certified:
            permission = MDPPerm.ANNOTATE  # an approval signature forbids neither
        docmdp_ok = getattr(status, "docmdp_ok", None) is not False
        if (
            level == ModificationLevel.FORM_FILLING
            and docmdp_ok
            and permission in (MDPPerm.FILL_FORMS, MDPPerm.ANNOTATE)
        ):
            return Finding(
                ALLOWED_FORM_FILLING,
                "Form fields were filled in or signatures added after it was certified, which "
                f"the certifier permitted (certification level {permission.value})."
                if certified
                else "Form fields were filled in after it was signed; the signed content is "
                "unchanged.",
            )
        if (
            permission == MDPPerm.ANNOTATE
            and level in (ModificationLevel.ANNOTATIONS, ModificationLevel.OTHER)
            and (
                # our analysis (where pyHanko's gave up) tells annotations from other changes
                (getattr(status, "own", False) and level == ModificationLevel.ANNOTATIONS)
                or _only_annotations_added(self.reader, embedded.signed_revision)
            )
        ):
            return Finding(
                ALLOWED_ANNOTATIONS,
                "Comments or other annotations were added after it was certified, which the "
                "certifier permitted (certification level 3)."
                if certified
                else "Comments or other annotations were added after it was signed; the signed "
                "content is unchanged.",
            )
        return None

    def _info_changed_after(self, revision: int) -> bool:
        """Whether the document information dictionary (the trailer's /Info: title, author...)
        differs from what it was at ``revision``: pyHanko's analysis of later revisions looks
        only at what the catalog reaches. /ModDate and /Producer are left out: the tools that
        add validation data (pyHanko among them) update them."""
        return self._info_at(revision) != self._info_at(None)

    def _info_at(self, revision: int | None) -> dict[str, str] | None:
        try:
            reference = self.reader.trailer.raw_get("/Info", revision=revision)
        except KeyError:
            return None
        if not isinstance(reference, generic.IndirectObject):
            info = reference
        elif revision is None:
            info = reference.get_object()
        else:
            info = self.reader.get_object(reference.reference, revision=revision)
        if not isinstance(info, generic.DictionaryObject):
            return {"": repr(info)}
        values: dict[str, str] = {}
        for key in info:
            if key in ("/ModDate", "/Producer"):
                continue
            value = info.raw_get(key)
            if isinstance(value, generic.IndirectObject):  # its value as of ``revision``
                value = (
                    value.get_object()
                    if revision is None
                    else self.reader.get_object(value.reference, revision=revision)
                )
            values[str(key)] = repr(value)
        return values


_ANNOTATION_ONLY_KEYS = frozenset({"/Annots"})


def _only_annotations_added(reader: PdfFileReader, signed_revision: int) -> bool:
    """Whether every revision after ``signed_revision`` only adds annotations: each object it
    writes is new and an annotation (not a form field's widget) or its appearance stream, or a
    page whose only change is more entries in /Annots (or its indirect /Annots array, grown)."""
    xrefs = reader.xrefs
    try:
        for revision in range(signed_revision + 1, xrefs.total_revisions):
            info = reader.trailer.raw_get("/Info", revision=revision)
            for ref in xrefs.explicit_refs_in_revision(revision):
                if isinstance(info, generic.IndirectObject) and ref == info.reference:
                    continue  # the document information: checked on its own (_info_changed_after)
                new = reader.get_object(ref, revision=revision)
                if isinstance(new, generic.StreamObject) and new.get("/Type") in (
                    "/XRef",
                    "/ObjStm",
                ):
                    continue  # the update's own cross-reference stream or object stream
                if xrefs.get_historical_ref(ref, revision - 1) is None:
                    if not _is_annotation_or_appearance(new):
                        return False
                    continue
                old = reader.get_object(ref, revision=revision - 1)
                if not _grows_annotations(old, new):
                    return False
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - whatever cannot be read is not shown to be allowed
        return False
    return True


def _is_annotation_or_appearance(value: object) -> bool:
    if isinstance(value, generic.StreamObject):
        return value.get("/Subtype") == "/Form"  # an appearance stream (a form XObject)
    if not isinstance(value, generic.DictionaryObject):
        return False
    subtype = value.get("/Subtype")
    return (
        subtype is not None
        and subtype != "/Widget"
        and "/Rect" in value
        and value.get("/Type", "/Annot") == "/Annot"
        and "/FT" not in value
    )


def _grows_annotations(old: object, new: object) -> bool:
    """A page whose only change is a longer /Annots beginning with the old one, or an /Annots
    array grown the same way."""
    if isinstance(old, generic.ArrayObject) and isinstance(new, generic.ArrayObject):
        return _extends(old, new)
    if not (
        isinstance(old, generic.DictionaryObject) and isinstance(new, generic.DictionaryObject)
    ):
        return False
    if isinstance(old, generic.StreamObject) or old.get("/Type") != "/Page":
        return False
    keys = (set(old) | set(new)) - _ANNOTATION_ONLY_KEYS
    if any(old.raw_get(k) != new.raw_get(k) for k in keys if k in old and k in new):
        return False
    if set(old) - _ANNOTATION_ONLY_KEYS != set(new) - _ANNOTATION_ONLY_KEYS:
        return False
    old_annots = old.raw_get("/Annots") if "/Annots" in old else generic.ArrayObject()
    new_annots = new.raw_get("/Annots") if "/Annots" in new else generic.ArrayObject()
    if isinstance(old_annots, generic.IndirectObject) or isinstance(
        new_annots, generic.IndirectObject
    ):
        return old_annots == new_annots  # the array itself, if grown, is checked as an array
    return (
        isinstance(old_annots, generic.ArrayObject)
        and isinstance(new_annots, generic.ArrayObject)
        and _extends(old_annots, new_annots)
    )


def _extends(old: generic.ArrayObject, new: generic.ArrayObject) -> bool:
    return len(new) > len(old) and all(new.raw_get(i) == old.raw_get(i) for i in range(len(old)))
