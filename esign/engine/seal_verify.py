"""verify_pdf: what the signatures of a PDF say: intact, trusted, by whom, when, PAdES level.

The input is anybody's file (the public verification page), so:

- nothing is fetched: no OCSP, no CRL, no certificate from a URL in the file. Trust is decided
  against the roots the caller passes (the seal's own and the configured ones) and whatever
  validation data the file itself carries;
- pyHanko reads the file with its limits for untrusted input, and every signature is checked on
  its own: a malformed one is reported as not intact, the others are still checked;
- at most ``max_signatures`` signatures are checked;
- before any parse, `check_pdf_limits` scans the raw bytes and refuses (`PdfOverLimit`) what
  would make pyHanko's parse unbounded: signature contents over a size (pyHanko reads a hex
  string digit by digit into Python objects: 12 MB of digits took 1 to 2 GB), too many
  revisions, objects or signatures. What hides in compressed object streams escapes the scan;
  the caller runs verify_pdf in a worker process with memory and time limits
  (esign.engine.verify_pool) for that. A MemoryError is never reported as an unreadable file:
  it propagates, for the worker to report.

A signature is *intact* when its digest matches the bytes it covers, its cryptographic
signature is valid, and its /Contents holds nothing after the CMS object but the zero padding
(pyHanko ignores that padding; a changed byte there would otherwise go unnoticed). It is
*trusted* when its certificate chains to one of the roots. It *covers the whole document* when
it covers every byte, or everything after its revision is long-term validation data (a document
security store, document timestamps).

Levels (ETSI EN 319 142-1), read from the file's structure: ``PAdES-B-B`` for an intact
``ETSI.CAdES.detached`` signature; ``PAdES-B-T`` with a signature timestamp; ``PAdES-B-LT`` when
the document security store also holds the signer's certificate (and revocation data, when the
certificate names a source of it); ``PAdES-B-LTA`` when an intact document timestamp was added
after the signature. Other signatures (``adbe.pkcs7.detached``) have no PAdES level.

Pure Python (no Django).
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from asn1crypto import parser
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.diff_analysis import ModificationLevel
from pyhanko.sign.fields import enumerate_sig_fields
from pyhanko.sign.validation import (
    EmbeddedPdfSignature,
    validate_pdf_signature,
    validate_pdf_timestamp,
)
from pyhanko.sign.validation.dss import DocumentSecurityStore, NoDSSFoundError
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext

from core.engine.problems import EngineError, InvalidInput, Problem

logger = logging.getLogger(__name__)

PADES_SUBFILTER = "/ETSI.CAdES.detached"
DOCUMENT_TIMESTAMP = "/DocTimeStamp"
MAX_SIGNATURES = 50


class PdfNotVerifiable(InvalidInput):
    """The file is not a PDF whose signatures can be read."""

    code = "pdf_not_verifiable"


class PdfTooComplex(EngineError):
    """The file is beyond what one verification may spend (a 422 on ``file``, not a 400: the
    file may be a fine PDF)."""

    code = "pdf_too_complex"
    kind = "unprocessable"
    path = "file"

    def __init__(self, message: str) -> None:
        self.message = message
        self.problems = [Problem(self.path, message)]
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return (type(self), (self.message,))


class PdfOverLimit(PdfTooComplex):
    """The raw bytes are over a structural limit (`check_pdf_limits`); nothing was parsed."""

    code = "pdf_over_limit"


@dataclass(frozen=True)
class VerifyLimits:
    """What one verification may parse. The defaults are far above real signed files: a
    PAdES-B-LTA signature's CMS object (certificates, timestamp, revocation data) is some tens of
    KB, a document a few revisions per signer."""

    max_signature_contents_bytes: int = 1_048_576  # DER bytes: half the hex digits
    max_revisions: int = 100  # incremental updates (startxref keywords)
    max_objects: int = 200_000  # indirect objects (object headers, the trailers' /Size)
    max_signatures: int = 200  # signatures and document timestamps (/ByteRange arrays)


_BYTE_RANGE = re.compile(rb"/ByteRange\s*\[\s*(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})")
_OBJECT_HEADER = re.compile(rb"\d\s+obj\b")
_TRAILER_SIZE = re.compile(rb"/Size\s+(\d{1,12})")


def check_pdf_limits(pdf: bytes, limits: VerifyLimits) -> None:
    """Refuse ``pdf`` (PdfOverLimit on ``file``) when its raw bytes are over ``limits``.

    Scans only, with regular expressions over the bytes (a 25 MB file in well under a second
    and no copy of it): no PDF parse. A signature's /Contents is the gap between the two ranges
    of its /ByteRange; a /ByteRange that lies is caught by the longest hexadecimal string,
    which pyHanko would parse just the same.
    """
    limit = limits.max_signature_contents_bytes
    signatures = 0
    for match in _BYTE_RANGE.finditer(pdf):
        signatures += 1
        first_start, first_length, second_start, _ = (int(g) for g in match.groups())
        gap = second_start - (first_start + first_length)
        contents = max(0, gap - 2) // 2  # hex digits between < and >, two to a byte
        if contents > limit:
            _refuse(f"A signature's contents are {_size(contents)}; the limit is {_size(limit)}.")
    if signatures > limits.max_signatures:
        _refuse(f"The file has {signatures} signatures; the limit is {limits.max_signatures}.")
    # Whitespace may sit between the digits; pyHanko reads it all the same.
    if re.search(rb"<[0-9A-Fa-f\s]{%d}" % (2 * limit + 1), pdf):
        _refuse(
            f"The file holds a string longer than a signature's contents may be ({_size(limit)})."
        )
    revisions = pdf.count(b"startxref")
    if revisions > limits.max_revisions:
        _refuse(f"The file has {revisions} revisions; the limit is {limits.max_revisions}.")
    objects = sum(1 for _ in _OBJECT_HEADER.finditer(pdf))
    declared = max((int(m.group(1)) for m in _TRAILER_SIZE.finditer(pdf)), default=0)
    if max(objects, declared) > limits.max_objects:
        _refuse(
            f"The file has {max(objects, declared)} objects; the limit is {limits.max_objects}."
        )


def _refuse(message: str) -> None:
    raise PdfOverLimit(message)


def _size(count: int) -> str:
    if count >= 1_048_576:
        return f"{count / 1_048_576:.1f}".removesuffix(".0") + " MB"
    return f"{count:,} bytes"


@dataclass(frozen=True)
class SignatureReport:
    field_name: str
    signer: str  # the certificate's common name (its whole subject when it has none); "" unknown
    signed_at: datetime | None  # the signer's claimed signing time
    intact: bool
    trusted: bool
    covers_whole_document: bool
    level: str | None  # PAdES-B-B, -B-T, -B-LT, -B-LTA; None when not a PAdES signature
    timestamp: datetime | None  # the signature timestamp's time (a TSA's), if any
    timestamp_authority: str = ""
    timestamp_trusted: bool = False
    problems: tuple[str, ...] = ()  # for people: why it is not intact, trusted or whole


@dataclass(frozen=True)
class DocumentTimestampReport:
    field_name: str
    authority: str
    at: datetime | None
    intact: bool
    trusted: bool


@dataclass(frozen=True)
class PdfVerification:
    signatures: tuple[SignatureReport, ...] = ()
    document_timestamps: tuple[DocumentTimestampReport, ...] = ()
    unchecked: int = 0  # signatures beyond max_signatures
    notes: tuple[str, ...] = field(default=())


def verify_pdf(
    pdf: bytes,
    *,
    trust_roots: Sequence[asn1_x509.Certificate],
    max_signatures: int = MAX_SIGNATURES,
) -> PdfVerification:
    """Every signature and document timestamp of ``pdf``, checked against ``trust_roots``.

    Raises PdfNotVerifiable when the bytes cannot be read as a PDF at all.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _verify(pdf, trust_roots, max_signatures)
    # pyHanko's synchronous validation runs its own event loop: not from inside another one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_verify, pdf, trust_roots, max_signatures).result()


def _verify(
    pdf: bytes, trust_roots: Sequence[asn1_x509.Certificate], max_signatures: int
) -> PdfVerification:
    if not pdf.lstrip()[:1024].startswith(b"%PDF-") and b"%PDF-" not in pdf[:1024]:
        raise PdfNotVerifiable.single("file", "The file is not a PDF.")
    try:
        reader = PdfFileReader(io.BytesIO(pdf), strict=False)
        found = list(enumerate_sig_fields(reader, filled_status=True))
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 - hostile input: any parser failure means unreadable
        logger.info("verify: unreadable PDF (%s: %s)", type(error).__name__, error)
        raise PdfNotVerifiable.single("file", "The PDF could not be read.") from None

    roots = list(trust_roots)
    signatures: list[tuple[str, EmbeddedPdfSignature | None, str]] = []
    for name, _value, field_ref in found[:max_signatures]:
        try:
            embedded = EmbeddedPdfSignature(reader, field_ref, name)
        except MemoryError:
            raise
        except Exception as error:  # noqa: BLE001 - a malformed signature is reported, not fatal
            signatures.append(
                (name, None, f"The signature cannot be read ({type(error).__name__}).")
            )
            continue
        signatures.append((name, embedded, ""))

    stamped = [
        (embedded, _document_timestamp(name, embedded, roots))
        for name, embedded, _ in signatures
        if embedded is not None and embedded.sig_object_type == DOCUMENT_TIMESTAMP
    ]
    # The revision of the latest document timestamp that holds: signatures before it are LTA.
    latest_timestamp_revision = max(
        (e.signed_revision for e, report in stamped if report.intact and report.trusted),
        default=-1,
    )
    dss = _dss(reader)
    reports = [
        _signature(name, embedded, error, roots, dss, latest_timestamp_revision)
        for name, embedded, error in signatures
        if embedded is None or embedded.sig_object_type != DOCUMENT_TIMESTAMP
    ]
    return PdfVerification(
        signatures=tuple(reports),
        document_timestamps=tuple(report for _, report in stamped),
        unchecked=max(0, len(found) - max_signatures),
    )


@dataclass(frozen=True)
class _Dss:
    certificates: frozenset[bytes]  # sha256 of each certificate
    has_revocation_data: bool


def _dss(reader: PdfFileReader) -> _Dss | None:
    try:
        store = DocumentSecurityStore.read_dss(reader)
    except NoDSSFoundError:
        return None
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - a broken store counts as none
        logger.info("verify: unreadable document security store", exc_info=True)
        return None
    certificates = frozenset(
        asn1_x509.Certificate.load(ref.get_object().data).sha256 for ref in store.certs.values()
    )
    return _Dss(certificates, bool(store.ocsps or store.crls))


def _context(roots: Sequence[asn1_x509.Certificate]) -> ValidationContext:
    return ValidationContext(trust_roots=list(roots), allow_fetching=False)


def _name_of(certificate: asn1_x509.Certificate) -> str:
    names = certificate.subject.native
    common = names.get("common_name") if isinstance(names, dict) else None
    if isinstance(common, list):
        common = common[0] if common else None
    return str(common or certificate.subject.human_friendly)


def _padding_is_clean(embedded: EmbeddedPdfSignature) -> bool:
    """Whether /Contents has nothing but zeros after the CMS object (the DER's own length)."""
    content = embedded.pkcs7_content
    _, _, _, header, contents, trailer = parser.parse(content, strict=False)
    used = len(header) + len(contents) + len(trailer)
    return not content[used:].strip(b"\x00")


def _signature(
    name: str,
    embedded: EmbeddedPdfSignature | None,
    read_error: str,
    roots: Sequence[asn1_x509.Certificate],
    dss: _Dss | None,
    latest_timestamp_revision: int,
) -> SignatureReport:
    if embedded is None:
        return SignatureReport(
            name, "", None, False, False, False, None, None, problems=(read_error,)
        )
    signer = ""
    try:
        signer = _name_of(embedded.signer_cert)
        status = validate_pdf_signature(embedded, _context(roots), _context(roots))
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 - hostile input: report, never crash
        logger.info("verify: signature %s not checkable (%s)", name, type(error).__name__)
        return SignatureReport(
            name,
            signer,
            None,
            False,
            False,
            False,
            None,
            None,
            problems=(f"The signature could not be checked ({type(error).__name__}).",),
        )
    problems: list[str] = []
    clean = _padding_is_clean(embedded)
    intact = bool(status.intact and status.valid and clean)
    if not status.intact:
        problems.append("The document was changed after it was signed.")
    elif not status.valid:
        problems.append("The signature value does not match the signer's certificate.")
    elif not clean:
        problems.append("The signature's contents were changed after it was signed.")
    trusted = bool(intact and status.trusted)
    if intact and not status.trusted:
        problems.append("The signer's certificate does not chain to a trusted root.")
    whole = intact and (
        status.coverage == SignatureCoverageLevel.ENTIRE_FILE
        or (
            status.coverage == SignatureCoverageLevel.ENTIRE_REVISION
            and status.modification_level is not None
            and status.modification_level <= ModificationLevel.LTA_UPDATES
            and status.docmdp_ok is not False
        )
    )
    if intact and not whole:
        problems.append("The document was changed after it was signed (later revisions).")
    timestamp = status.timestamp_validity
    timestamp_ok = bool(timestamp is not None and timestamp.intact and timestamp.valid)
    level = _level(embedded, intact, timestamp_ok, dss, latest_timestamp_revision)
    return SignatureReport(
        field_name=name,
        signer=signer,
        signed_at=status.signer_reported_dt,
        intact=intact,
        trusted=trusted,
        covers_whole_document=whole,
        level=level,
        timestamp=timestamp.timestamp if timestamp is not None else None,
        timestamp_authority=_name_of(timestamp.signing_cert) if timestamp is not None else "",
        timestamp_trusted=bool(timestamp_ok and timestamp is not None and timestamp.trusted),
        problems=tuple(problems),
    )


def _names_revocation_source(certificate: asn1_x509.Certificate) -> bool:
    return bool(certificate.crl_distribution_points or certificate.ocsp_urls)


def _level(
    embedded: EmbeddedPdfSignature,
    intact: bool,
    timestamped: bool,
    dss: _Dss | None,
    latest_timestamp_revision: int,
) -> str | None:
    if str(embedded.sig_object.get("/SubFilter")) != PADES_SUBFILTER or not intact:
        return None
    if not timestamped:
        return "PAdES-B-B"
    certificate = embedded.signer_cert
    if dss is None or certificate.sha256 not in dss.certificates:
        return "PAdES-B-T"
    if _names_revocation_source(certificate) and not dss.has_revocation_data:
        return "PAdES-B-T"
    if latest_timestamp_revision > embedded.signed_revision:
        return "PAdES-B-LTA"
    return "PAdES-B-LT"


def _document_timestamp(
    name: str, embedded: EmbeddedPdfSignature, roots: Sequence[asn1_x509.Certificate]
) -> DocumentTimestampReport:
    try:
        status = validate_pdf_timestamp(embedded, _context(roots))
        authority = _name_of(embedded.signer_cert)
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 - hostile input
        logger.info("verify: document timestamp %s not checkable (%s)", name, type(error).__name__)
        return DocumentTimestampReport(name, "", None, False, False)
    intact = bool(status.intact and status.valid and _padding_is_clean(embedded))
    return DocumentTimestampReport(
        field_name=name,
        authority=authority,
        at=status.timestamp,
        intact=intact,
        trusted=bool(intact and status.trusted),
    )
