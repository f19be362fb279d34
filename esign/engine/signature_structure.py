"""What a signature's place in the file says, beyond its digest and value: whether its byte range
is one a signature may have, whether its signed attributes are DER-encoded, what its /Contents
holds after the CMS object, and what shape of CMS it is (esign.engine.cms_formats).

`check_structure` answers for one signature or document timestamp: ``broken`` (a finding that
makes it not intact: DSS gives these a FORMAT_FAILURE or HASH_FAILURE) and ``notices``
(said, and no verdict rests on them).

- The byte range (PDF 2.0 § 12.8.1; DSS's ByteRange checks): four numbers ``[0 a b c]``, the
  gap between the two parts exactly the /Contents string ``<...>`` (its hexadecimal digits the
  signature's own contents: no other bytes left out), the second part ending at the end of the
  file or at the end of a revision (its %%EOF: a later revision, or bytes appended, are judged
  as such by the verifier's other checks). Anything else leaves bytes out, overlaps the
  signature's own contents, or reaches past the file: not intact.
- Signed attributes not in DER order: the signer signed a BER encoding; validators that
  re-encode them (DSS) find another digest. Not intact (DSS: HASH_FAILURE).
- Bytes other than zeros after the CMS object inside /Contents: padding no signature covers and
  no validator reads. A notice: it changes nothing that was signed.

Pure Python (no Django).
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass

from asn1crypto import cms, parser
from pyhanko.sign.validation import EmbeddedPdfSignature

from esign.engine.cms_formats import signed_attributes_sorted
from esign.engine.pdf_signatures import file_bytes
from esign.engine.signature_timestamps import broken_timestamps
from esign.engine.verify_report import (
    BYTE_RANGE_INVALID,
    NOT_INTACT,
    PADDING_NOT_ZERO,
    SIGNATURE_FORMAT,
    TIMESTAMP_NOT_INTACT,
    Finding,
)

_WHITESPACE_BYTES = b"\x00\t\n\x0c\r "  # PDF whitespace
_NOT_WHITESPACE = re.compile(rb"[^\x00\t\n\x0c\r ]")
_END_OF_REVISION = re.compile(rb"%%EOF[\r\n]*\Z")


@dataclass(frozen=True)
class Structure:
    broken: Finding | None = None  # why it is not intact, if its structure says so
    notices: tuple[Finding, ...] = ()
    # signature timestamp tokens that do not hold (esign.engine.signature_timestamps)
    timestamps: tuple[Finding, ...] = ()


def check_structure(embedded: EmbeddedPdfSignature) -> Structure:
    """The structural findings of ``embedded`` (a signature or a document timestamp)."""
    try:
        return _check(embedded)
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 - hostile input: what cannot be read is not intact
        return Structure(
            Finding(
                NOT_INTACT, f"The signature's structure cannot be read ({type(error).__name__})."
            )
        )


def _check(embedded: EmbeddedPdfSignature) -> Structure:
    data = file_bytes(embedded)
    notices = [Finding(SIGNATURE_FORMAT, note) for note in getattr(embedded, "cms_notes", ())]
    padding = _padding(embedded.pkcs7_content)
    if padding:
        notices.append(
            Finding(
                PADDING_NOT_ZERO,
                f"The signature's /Contents holds {padding:,} bytes other than zeros after its "
                "CMS object: padding that no signature covers and no validator reads.",
            )
        )
    why = byte_range_problem(data, embedded)
    code = BYTE_RANGE_INVALID if why else NOT_INTACT
    if not why:
        cms_broken = getattr(embedded, "cms_broken", None)
        why = cms_broken() if cms_broken is not None else ""
    if not why and not signed_attributes_sorted(embedded.signer_info):
        why = (
            "The signature's signed attributes are not DER-encoded (not in sorted order): what "
            "was signed is not their encoding, and validators that re-encode them, as the EU's "
            "reference validator does, find another digest."
        )
    broken = Finding(code, why) if why else None
    # the signature value as the file holds it (a plain ECDSA one before it was re-encoded)
    original = cms.ContentInfo.load(embedded.pkcs7_content)["content"]["signer_infos"][0]
    timestamps = tuple(
        Finding(TIMESTAMP_NOT_INTACT, problem)
        for problem in broken_timestamps(embedded.signer_info, bytes(original["signature"].native))
    )
    return Structure(broken, tuple(notices), timestamps)


def byte_range_problem(data: bytes, embedded: EmbeddedPdfSignature) -> str:
    """Why the signature's /ByteRange is not one a signature may have; "" when it is."""
    try:
        values = [int(v) for v in embedded.byte_range]
    except (TypeError, ValueError):
        return "The signature's byte range is not a list of numbers."
    if len(values) != 4:
        return f"The signature's byte range has {len(values)} numbers instead of 4."
    start, first, second_start, second = values
    if start != 0 or first < 0 or second < 0 or second_start < first:
        return (
            "The signature's byte range does not start at the file's first byte or its two "
            "parts overlap."
        )
    end = second_start + second
    if end > len(data):
        return (
            f"The signature's byte range reaches past the end of the file ({end:,} bytes of "
            f"{len(data):,})."
        )
    gap = data[first:second_start]
    if not (gap.startswith(b"<") and gap.endswith(b">")) or not _is_contents(
        gap[1:-1], embedded.pkcs7_content
    ):
        return (
            "The bytes the signature's byte range leaves out are not exactly its own "
            "contents: other bytes of the file are not covered."
        )
    # Past the end of a revision comes a later revision (its changes are analysed) or bytes
    # that are none (reported as appended); a range that ends anywhere else leaves part of its
    # own revision out.
    at_revision_end = bool(_END_OF_REVISION.search(data[max(0, end - 64) : end]))
    if _NOT_WHITESPACE.search(data, end) and not at_revision_end:
        return (
            "The signature's byte range ends neither at the end of the file nor at the end of "
            "a revision: part of what it signs is left out."
        )
    return ""


def _is_contents(digits: bytes, contents: bytes) -> bool:
    try:
        return binascii.unhexlify(digits.translate(None, _WHITESPACE_BYTES)) == contents
    except (binascii.Error, ValueError):
        return False


def _padding(content: bytes) -> int:
    """How many bytes after the CMS object in /Contents are not zeros."""
    try:
        used = parser.peek(content)
    except ValueError:
        return 0  # no CMS object to speak of: pyHanko's reading reports it
    return len(content[used:].strip(b"\x00"))
