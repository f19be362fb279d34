"""seal_pdf: the service's own PAdES signature on a finished document (pyHanko).

A packet's documents are sealed once, after the last signer's stamps are drawn: stamping
rewrites the whole file, so a signature made before it would break. The seal is one invisible
signature by the service's certificate, ``/SubFilter /ETSI.CAdES.detached``, SHA-256:

- without a timestamp authority: PAdES-B-B. The signing time is the claimed ``signing_time``
  only (the caller's clock), written as the signature dictionary's ``/M`` (PAdES forbids the
  CMS signing-time attribute), which is all a deployment without a TSA can offer.
- with timestamp authorities (``TsaConfig``, tried in the order given): an RFC 3161 signature
  timestamp (PAdES-B-T), the validation data of the seal's and the TSA's chains in the document
  security store (B-LT) and a document timestamp over it all (B-LTA). If no TSA answers, nothing
  is produced (``TimestampUnavailable``): a document is never sealed with a made-up time.

The key is loaded by esign.engine.seal_credentials and the TSAs are asked by
esign.engine.timestamps. Revocation data (OCSP, CRLs) for the long-term validation material is
fetched by pyHanko's own client from the URLs in the seal's and the TSA's certificates:
certificates the operator chose, never ones from a document a user sent.

Pure Python (no Django); the clock is the caller's.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Coroutine, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from asn1crypto import cms
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils import embed, generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.misc import PdfError
from pyhanko.sign import fields, signers
from pyhanko.sign.general import SigningError
from pyhanko.sign.signers.pdf_cms import PdfCMSSignedAttributes
from pyhanko.sign.signers.pdf_signer import PostSignInstructions
from pyhanko.sign.timestamps.common_utils import TimestampRequestError
from pyhanko_certvalidator import ValidationContext
from pyhanko_certvalidator.errors import PathBuildingError, PathValidationError, RevokedError

from esign.engine.errors import (
    SealCertificateRevoked,
    SealError,
    SealKeyUnavailable,
    TimestampUnavailable,
    ValidationDataUnavailable,
)
from esign.engine.revocation import revocation_fetchers
from esign.engine.seal_credentials import SealCredentials
from esign.engine.timestamps import FallbackTimeStamper, TsaConfig

T = TypeVar("T")

DIGEST = "sha256"
SEAL_FIELD = "DocumentSeal"
# Room in a seal's /Contents beyond its certificates: the signature (512 bytes up to RSA 4096)
# and the signed attributes (content type, message digest, signing time, signing certificate v2:
# under 400 bytes), with ample margin.
B_B_OVERHEAD_BYTES = 4096
# Room for the signature timestamp token of a B-T (and up) seal: its TSTInfo, the TSA's
# signature and the certificates the TSA embeds. Reserved without asking the TSA for a sample
# token first (pyHanko's estimate), so each timestamp costs one request.
TIMESTAMP_TOKEN_BYTES = 32 * 1024


@dataclass(frozen=True)
class Attachment:
    """A file embedded in the document, in the seal's revision (so the seal covers it), as a
    PDF/A-3 style associated file of the whole document (``/AF``, relationship Supplement)."""

    filename: str
    data: bytes
    description: str = ""
    mime_type: str = "application/pdf"


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run``, also from a thread whose event loop is already running (there it runs in
    a thread of its own): pyHanko's API is asynchronous, ours is not."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@dataclass(frozen=True)
class SealedPdf:
    """A sealed file and the PAdES level of its seal, from what the seal step embedded: a
    ``ETSI.CAdES.detached`` signature (B-B), its signature timestamp (B-T), the chains'
    validation data in the document security store (B-LT), a document timestamp over it all
    (B-LTA). The same reading as esign.engine.seal_verify's, without parsing the file again
    (tests/esign/test_seal_level.py checks that the two agree)."""

    pdf: bytes
    level: str


def seal_pdf(pdf: bytes, **options: Any) -> bytes:
    """The sealed file of :func:`seal_document` (the same keyword arguments and errors)."""
    return seal_document(pdf, **options).pdf


def seal_document(
    pdf: bytes,
    *,
    credentials: SealCredentials,
    signing_time: datetime,
    tsa: TsaConfig | FallbackTimeStamper | None = None,
    trust_roots: Sequence[asn1_x509.Certificate] = (),
    reason: str = "",
    location: str = "",
    attachments: Sequence[Attachment] = (),
    field_name: str = SEAL_FIELD,
    archive_timestamp: bool = True,
) -> SealedPdf:
    """``pdf`` with the seal appended as an incremental update (the original bytes unchanged),
    and the level of the seal (:class:`SealedPdf`).

    attachments: files embedded in the same update, before the seal is computed (the seal
    covers them): the audit trail a sealed document carries (SEAL_EMBED_AUDIT_TRAIL).

    signing_time: aware; the claimed signing time (the only time of a B-B seal: the
    signature's ``/M``). With ``tsa`` (the TSAs, or the ``FallbackTimeStamper`` of a sealing
    attempt that seals several documents, which remembers the TSAs that failed) the result is
    PAdES-B-LTA: ``trust_roots`` (besides the seal's own roots) are the roots the TSAs'
    certificates chain to. Raises TimestampUnavailable, ValidationDataUnavailable,
    SealKeyUnavailable or SealError.

    field_name and archive_timestamp: a signer's own signature (esign.sealing.signer_signatures)
    is made the same way in a field of its own, without the document timestamp (B-LT at most):
    the seal that follows adds the one archive timestamp over everything.
    """
    if signing_time.tzinfo is None:
        raise ValueError("signing_time must be aware")
    if isinstance(tsa, TsaConfig):
        tsa = FallbackTimeStamper(tsa)
    timestamper = tsa
    with pyhanko_errors():
        return run_coroutine(
            _seal(
                pdf,
                credentials,
                signing_time,
                timestamper,
                trust_roots,
                reason,
                location,
                attachments,
                field_name,
                archive_timestamp,
            )
        )


def pades_metadata(
    field_name: str, reason: str, location: str, **extra: Any
) -> signers.PdfSignatureMetadata:
    """The signature dictionary of every PAdES signature the service makes, the seal's and a
    remote signer's (esign.engine.remote_pades): ``/SubFilter /ETSI.CAdES.detached``, SHA-256,
    no empty reason or location. ``extra``: pyHanko's other settings (validation data...)."""
    return signers.PdfSignatureMetadata(
        field_name=field_name,
        md_algorithm=DIGEST,
        subfilter=fields.SigSeedSubFilter.PADES,
        reason=reason or None,
        location=location or None,
        **extra,
    )


@contextmanager
def pyhanko_errors() -> Iterator[None]:
    """pyHanko's, pyhanko-certvalidator's and python-pkcs11's errors as the engine's own: a seal
    and a renewal fail the same ways."""
    try:
        yield
    except SealError:
        raise
    except RevokedError as error:
        raise _revoked(error) from None
    except (PathBuildingError, PathValidationError) as error:
        raise ValidationDataUnavailable(
            "The validation data of a certificate chain could not be gathered.",
            log_detail=f"{type(error).__name__}: {error}",
        ) from None
    except TimestampRequestError as error:
        raise TimestampUnavailable(
            "No timestamp authority answered.", log_detail=str(error)
        ) from None
    except SigningError as error:
        cause = error.__cause__ or error.__context__
        if isinstance(cause, TimestampUnavailable):
            raise cause from None
        if isinstance(cause, RevokedError):
            raise _revoked(cause) from None
        if isinstance(cause, PathBuildingError | PathValidationError):
            raise ValidationDataUnavailable(
                "The validation data of a certificate chain could not be gathered.",
                log_detail=f"{type(cause).__name__}: {cause}",
            ) from None
        raise SealError("The document could not be sealed.", log_detail=str(error)) from None
    except PdfError as error:
        raise SealError("The document could not be read.", log_detail=str(error)) from None
    except RuntimeError as error:  # python-pkcs11's errors are RuntimeErrors
        if type(error).__module__.startswith("pkcs11"):
            raise SealKeyUnavailable(
                "The seal's key failed to sign.", log_detail=f"{type(error).__name__}: {error}"
            ) from None
        raise


def _revoked(error: RevokedError) -> SealCertificateRevoked:
    certificate = error.current_path.leaf
    subject = (
        certificate.subject.human_friendly
        if isinstance(certificate, asn1_x509.Certificate)
        else "an attribute certificate"
    )
    when = f" on {error.revocation_dt:%Y-%m-%d %H:%M} UTC" if error.revocation_dt else ""
    return SealCertificateRevoked(
        f"The certificate {subject} was revoked{when}: nothing can be sealed with it. "
        "Configure another seal key (or timestamp authority) and seal again.",
        log_detail=f"RevokedError: {error}",
    )


def _embed(writer: IncrementalPdfFileWriter, attachment: Attachment, when: datetime) -> None:
    data = embed.EmbeddedFileObject.from_file_data(
        writer,
        data=attachment.data,
        params=embed.EmbeddedFileParams(creation_date=when, modification_date=when),
        mime_type=attachment.mime_type,
    )
    embed.embed_file(
        writer,
        embed.FileSpec(
            file_spec_string=attachment.filename,
            file_name=attachment.filename,
            embedded_data=data,
            description=attachment.description or None,
            af_relationship=generic.pdf_name("/Supplement"),
        ),
    )


async def _seal(
    pdf: bytes,
    credentials: SealCredentials,
    signing_time: datetime,
    timestamper: FallbackTimeStamper | None,
    trust_roots: Sequence[asn1_x509.Certificate],
    reason: str,
    location: str,
    attachments: Sequence[Attachment] = (),
    field_name: str = SEAL_FIELD,
    archive_timestamp: bool = True,
) -> SealedPdf:
    long_term = timestamper is not None
    context: ValidationContext | None = None
    if long_term:
        roots = {c.sha256: c for c in [*credentials.roots, *trust_roots]}
        context = ValidationContext(
            trust_roots=list(roots.values()),
            other_certs=list(credentials.chain),
            allow_fetching=True,
            # An OCSP answer that cannot be read counts as none: the CRL is used instead.
            fetcher_backend=revocation_fetchers(),
            # A certificate with no reachable CRL or OCSP responder fails the attempt (it is
            # retried later): the seal must carry the revocation data its level promises.
            revocation_mode="hard-fail",
        )
    meta = pades_metadata(
        field_name,
        reason,
        location,
        embed_validation_info=long_term,
        use_pades_lta=long_term and archive_timestamp,
        validation_context=context,
    )
    try:
        writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
        for attachment in attachments:
            _embed(writer, attachment, signing_time)
        signer = signers.PdfSigner(meta, signer=credentials.signer, timestamper=timestamper)
        # pyHanko's sign_pdf, step by step, so that the claimed signing time is the caller's.
        session = signer.init_signing_session(writer)
        session.system_time = signing_time
        if timestamper is not None and not timestamper._dummy_response_cache:
            # Before this attempt's first timestamp, pyHanko would ask the TSA for a sample
            # token to find its certificates; they are found in the real token instead, whose
            # validation data joins the document security store with the document timestamp.
            session.timestamper = None
            validation = await session.perform_presign_validation(writer)
            session.timestamper = timestamper
        else:
            validation = await session.perform_presign_validation(writer)
        # pyHanko would estimate by building and signing a dummy CMS object (and, with a TSA,
        # by asking for a sample token): as costly as the real ones. The CMS object is the
        # certificates, the signature, a few attributes and, with a TSA, the timestamp token,
        # so a reservation from their sizes is exact enough. Counted in hexadecimal digits, as
        # /Contents holds it.
        embedded = {
            c.sha256: c for c in [credentials.certificate, *credentials.signer.cert_registry]
        }
        reserved_bytes = sum(len(c.dump()) for c in embedded.values()) + B_B_OVERHEAD_BYTES
        if long_term:
            reserved_bytes += TIMESTAMP_TOKEN_BYTES
        reserved = 2 * reserved_bytes
        document = session.prepare_tbs_document(validation_info=validation, bytes_reserved=reserved)
        prepared, output = document.digest_tbs_document()
        attributes: dict[str, Any] = {"signing_time": signing_time}
        if validation is not None:
            attributes["adobe_revinfo_attr"] = validation.adobe_revinfo_attr
        signed = await document.perform_signature(
            document_digest=prepared.document_digest,
            pdf_cms_signed_attrs=PdfCMSSignedAttributes(**attributes),
        )
        instructions = signed.post_sign_instructions
        await signed.post_signature_processing(output)
        output.seek(0)
        return SealedPdf(bytes(output.read()), _level(signed.sig_contents, instructions))
    finally:
        if context is not None:
            await context.aclose()  # the HTTP session pyHanko opened for revocation data


def _level(cms_bytes: bytes, instructions: PostSignInstructions | None) -> str:
    """The PAdES level of a seal from what was embedded: its CMS object (the signature
    timestamp token is an unsigned attribute of it) and what was added after it (the validation
    data in the document security store, then a document timestamp)."""
    signer_info = cms.ContentInfo.load(cms_bytes)["content"]["signer_infos"][0]
    unsigned = signer_info["unsigned_attrs"]
    stamped = unsigned.native is not None and any(
        attribute["type"].native == "signature_time_stamp_token" for attribute in unsigned
    )
    if not stamped:
        return "PAdES-B-B"
    if instructions is None or instructions.validation_info is None:
        return "PAdES-B-T"
    if instructions.timestamper is None:
        return "PAdES-B-LT"
    return "PAdES-B-LTA"
