"""Archive timestamp renewal: keeping a PAdES-B-LTA seal provable after its timestamp's
certificate expires.

A B-LTA file proves everything it holds by its last document timestamp. That proof lasts only as
long as the timestamp itself can be checked: once the TSA's certificate has expired (and its CA
no longer publishes revocation data for it) nothing can show that the timestamp was good. So,
before then, the file gets the validation data of its last timestamp (the TSA's chain, its CRLs
or OCSP responses, fetched now) in its document security store and a new document timestamp
over everything (pyHanko's ``PdfTimeStamper.update_archival_timestamp_chain``): the new
timestamp, by a TSA whose certificate is still young, is now the one that must stay checkable.
The file grows by an incremental update; its earlier bytes, seal included, are unchanged.

``timestamp_expiry`` says when a file's last timestamp stops being provable (the caller renews
some margin before); ``renew_seal_pdf`` does the renewal. Pure Python (no Django); the clock is
the caller's (``now``: the moment the validation data is checked at).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime

from asn1crypto import cms
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign import signers
from pyhanko_certvalidator import ValidationContext

from esign.engine.errors import RenewalTooLate, SealError
from esign.engine.revocation import revocation_fetchers
from esign.engine.seal import DIGEST, pyhanko_errors, run_coroutine
from esign.engine.timestamps import FallbackTimeStamper, TsaConfig


def _reader(pdf: bytes) -> PdfFileReader:
    with pyhanko_errors():
        return PdfFileReader(io.BytesIO(pdf), strict=False)


def _last_timestamp_token(reader: PdfFileReader) -> cms.SignedData | None:
    """The last document timestamp's token; without one, the last signature's timestamp."""
    timestamps = reader.embedded_timestamp_signatures
    if timestamps:
        return timestamps[-1].signed_data
    signatures = reader.embedded_regular_signatures
    if not signatures:
        return None
    unsigned = signatures[-1].signer_info["unsigned_attrs"]
    for attribute in unsigned if unsigned.native else ():
        if attribute["type"].native == "signature_time_stamp_token":
            return attribute["values"][0]["content"]
    return None


def timestamp_expiry(pdf: bytes) -> datetime | None:
    """When the file's last timestamp can no longer be proven: the earliest end of validity of
    the certificates its token carries (the TSA's and its issuers'). None for a file without a
    timestamp (a PAdES-B-B seal: nothing to renew)."""
    return _expiry(_reader(pdf))


def _expiry(reader: PdfFileReader) -> datetime | None:
    token = _last_timestamp_token(reader)
    if token is None:
        return None
    ends = [
        choice.chosen["tbs_certificate"]["validity"]["not_after"].native
        for choice in token["certificates"] or ()
        if isinstance(choice.chosen, asn1_x509.Certificate)
    ]
    return min(ends) if ends else None


def renew_seal_pdf(
    pdf: bytes,
    *,
    now: datetime,
    tsa: TsaConfig | FallbackTimeStamper,
    trust_roots: Sequence[asn1_x509.Certificate],
) -> bytes:
    """``pdf`` with the validation data of its last timestamp and a new document timestamp,
    appended as an incremental update (the original bytes unchanged).

    now: aware; the moment the last timestamp and its revocation data are checked at.
    trust_roots: the roots the TSAs' certificates chain to (the old TSA's and the new one's).
    Raises TimestampUnavailable, ValidationDataUnavailable, RenewalTooLate (the last
    timestamp's certificate has expired: pyHanko would add a timestamp that proves nothing) or
    SealError (nothing to renew: the file has no timestamp, or is not a PDF).
    """
    if now.tzinfo is None:
        raise ValueError("now must be aware")
    if isinstance(tsa, TsaConfig):
        tsa = FallbackTimeStamper(tsa)
    reader = _reader(pdf)
    if not reader.embedded_timestamp_signatures:
        raise SealError("The document has no document timestamp to renew.")
    expiry = _expiry(reader)
    if expiry is not None and now >= expiry:
        raise RenewalTooLate(
            f"The last timestamp's certificate expired on {expiry:%Y-%m-%d %H:%M} UTC: the "
            "file can no longer be renewed.",
            log_detail=f"renewal at {now.isoformat()}",
        )
    timestamper = signers.PdfTimeStamper(tsa)

    async def renew() -> bytes:
        context = ValidationContext(
            trust_roots=list(trust_roots),
            allow_fetching=True,
            fetcher_backend=revocation_fetchers(),
            # Revocation data that cannot be had fails the renewal (it is tried again later):
            # without it, the new timestamp would seal a chain nobody can check.
            revocation_mode="hard-fail",
            moment=now,
        )
        try:
            output = await timestamper.async_update_archival_timestamp_chain(
                reader, context, in_place=False, default_md_algorithm=DIGEST
            )
        finally:
            await context.aclose()
        output.seek(0)
        return bytes(output.read())

    with pyhanko_errors():
        return run_coroutine(renew())
