"""verify_pdf: what the signatures of a PDF say: intact, trusted, by whom, when, PAdES level.

The input is anybody's file (the public verification page), so:

- nothing is fetched: no OCSP, no CRL, no certificate from a URL in the file. Trust is decided
  against the roots the caller passes (the seal's own and the configured ones) and whatever
  validation data the file itself carries;
- pyHanko reads the file with its limits for untrusted input, and every signature is checked on
  its own: a malformed one is reported as not intact, the others are still checked;
- at most ``max_signatures`` signatures are checked;
- before any parse, `check_pdf_limits` (esign.engine.verify_limits) scans the raw bytes and
  refuses (`PdfOverLimit`) what would make pyHanko's parse unbounded: signature contents over a
  size (pyHanko reads a hex string digit by digit into Python objects: 12 MB of digits took 1 to
  2 GB), too many revisions, objects or signatures. What hides in compressed object streams
  escapes the scan; the caller runs verify_pdf in a worker process with memory and time limits
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
import logging
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from asn1crypto import x509 as asn1_x509
from pyhanko.sign.validation import EmbeddedPdfSignature

from core.engine.fetch import FetchPolicy
from core.engine.problems import InvalidInput
from esign.engine.pdf_signatures import (
    EncryptedPdf,
    embedded_signature,
    open_pdf,
    signature_fields,
)
from esign.engine.signature_timestamps import imprint_of, signature_timestamp_imprints
from esign.engine.verify_checks import Checker
from esign.engine.verify_report import DocumentTimestampReport, PdfVerification

logger = logging.getLogger(__name__)

DOCUMENT_TIMESTAMP = "/DocTimeStamp"
MAX_SIGNATURES = 50


class PdfNotVerifiable(InvalidInput):
    """The file is not a PDF whose signatures can be read."""

    code = "pdf_not_verifiable"


def verify_pdf(
    pdf: bytes,
    *,
    trust_roots: Sequence[asn1_x509.Certificate],
    max_signatures: int = MAX_SIGNATURES,
    now: datetime | None = None,
    tsa_roots: Sequence[asn1_x509.Certificate] | None = None,
    online_revocation: FetchPolicy | None = None,
) -> PdfVerification:
    """Every signature and document timestamp of ``pdf``, checked against ``trust_roots`` (of
    document signers) and ``tsa_roots`` (of timestamp authorities; ``trust_roots`` when None)
    with the validation data the file carries, at ``now`` or at the time a trusted timestamp
    proves. ``now`` is the caller's clock: None leaves it to pyHanko's (the current time).

    With ``online_revocation`` (opt-in), a signer's revocation data the file lacks is fetched
    from its certificate's OCSP responder or CRL, through core.engine.fetch under that policy;
    without it nothing is fetched.

    Raises PdfNotVerifiable when the bytes cannot be read as a PDF at all.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _verify(pdf, trust_roots, max_signatures, now, tsa_roots, online_revocation)
    # pyHanko's synchronous validation runs its own event loop: not from inside another one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(
            _verify, pdf, trust_roots, max_signatures, now, tsa_roots, online_revocation
        ).result()


def _verify(
    pdf: bytes,
    trust_roots: Sequence[asn1_x509.Certificate],
    max_signatures: int,
    now: datetime | None,
    tsa_roots: Sequence[asn1_x509.Certificate] | None,
    online_revocation: FetchPolicy | None = None,
) -> PdfVerification:
    if not pdf.lstrip()[:1024].startswith(b"%PDF-") and b"%PDF-" not in pdf[:1024]:
        raise PdfNotVerifiable.single("file", "The file is not a PDF.")
    try:
        # esign.engine.pdf_signatures: opened with an empty user password if encrypted; one
        # entry per signature, placeholders (unsigned fields) left out
        reader = open_pdf(pdf)
        found = signature_fields(reader)
    except MemoryError:
        raise
    except EncryptedPdf:
        raise PdfNotVerifiable.single(
            "file", "The PDF is encrypted: it opens only with a password."
        ) from None
    except Exception as error:  # noqa: BLE001 - hostile input: any parser failure means unreadable
        logger.info("verify: unreadable PDF (%s: %s)", type(error).__name__, error)
        raise PdfNotVerifiable.single("file", "The PDF could not be read.") from None

    signatures: list[tuple[str, EmbeddedPdfSignature | None, str]] = []
    for field_name, _value, field_ref in found[:max_signatures]:
        # A plain str: pyHanko's TextStringObject holds its reader (and with it the whole file),
        # which the report would otherwise carry back from the verify worker, pickled.
        name = str(field_name)
        try:
            embedded = embedded_signature(reader, field_ref, name)  # other tools' CMS too
        except MemoryError:
            raise
        except Exception as error:  # noqa: BLE001 - a malformed signature is reported, not fatal
            signatures.append(
                (name, None, f"The signature cannot be read ({type(error).__name__}).")
            )
            continue
        signatures.append((name, embedded, ""))

    checker = Checker(
        reader,
        pdf,
        list(trust_roots),
        now,
        None if tsa_roots is None else list(tsa_roots),
        online=online_revocation,
    )
    checker.signed_fields = [
        (name, embedded.signed_revision) for name, embedded, _ in signatures if embedded is not None
    ]
    regular = [
        (name, embedded, error)
        for name, embedded, error in signatures
        if embedded is None or embedded.sig_object_type != DOCUMENT_TIMESTAMP
    ]
    document_timestamps = [
        (name, embedded)
        for name, embedded, _ in signatures
        if embedded is not None and embedded.sig_object_type == DOCUMENT_TIMESTAMP
    ]
    checker.timestamp_imprints = _imprints(
        [e for _, e in document_timestamps], [e for _, e, _ in regular if e is not None]
    )
    # AdES long-term validation: the last document timestamp at its own time (and within its
    # authority's certificate now), each earlier one at the time the next one proves, each
    # signature at the time the earliest trusted document timestamp after it proves.
    stamped: dict[str, DocumentTimestampReport] = {}
    proven: list[tuple[int, datetime]] = []  # (revision, time) of the trusted ones
    proven_at: datetime | None = None
    for name, embedded in sorted(document_timestamps, key=lambda t: -t[1].signed_revision):
        report = checker.document_timestamp(name, embedded, regular, proven_at)
        stamped[name] = report
        proven_at = report.at if report.intact and report.trusted else None
        if proven_at is not None:
            proven.append((embedded.signed_revision, proven_at))
    # The revision of the latest document timestamp that holds: signatures before it are LTA.
    latest_timestamp_revision = max((revision for revision, _ in proven), default=-1)
    reports = [
        checker.signature(
            name,
            embedded,
            error,
            latest_timestamp_revision,
            _earliest_proof_after(embedded.signed_revision, proven) if embedded else None,
        )
        for name, embedded, error in regular
    ]
    return PdfVerification(
        signatures=tuple(reports),
        document_timestamps=tuple(stamped[name] for name, _ in document_timestamps),
        unchecked=max(0, len(found) - max_signatures),
        appended_bytes=checker.appended_bytes,
    )


def _earliest_proof_after(revision: int, proven: list[tuple[int, datetime]]) -> datetime | None:
    """The time of the earliest trusted document timestamp after ``revision``, if any."""
    return min(((r, at) for r, at in proven if r > revision), default=(0, None))[1]


def _imprints(
    document_timestamps: list[EmbeddedPdfSignature], signatures: list[EmbeddedPdfSignature]
) -> dict[bytes, int]:
    """How many of the file's timestamps stamp each digest (its document timestamps and the
    signature timestamps inside its signatures)."""
    found: list[bytes | None] = []
    for embedded in [*document_timestamps, *signatures]:
        try:
            if embedded in document_timestamps:
                found.append(imprint_of(embedded.signed_data))
            else:
                found += signature_timestamp_imprints(embedded.signer_info)
        except Exception:  # noqa: BLE001, S112 - hostile input: its own check reports it
            continue
    return dict(Counter(i for i in found if i is not None))
