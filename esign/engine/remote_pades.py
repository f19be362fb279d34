"""A PAdES signature whose signature value is made elsewhere: a signer's remote credential at a
trust service provider (the CSC API, esign.engine.csc_client).

pyHanko's interrupted signing, in two steps around the provider's ``signHash``:

1. ``prepare_remote``: the signature field is added and the document's digest computed (an
   incremental update, /SubFilter ETSI.CAdES.detached, SHA-256), the CMS signed attributes
   built (PAdES: no signing-time attribute; the claimed time is the dictionary's /M), and their
   SHA-256 is what the provider signs. Several documents are prepared before one
   ``credentials/authorize``: the SAD of a SCAL2 credential covers exactly those hashes, and a
   one-time code can be used once.
2. ``finish_remote``: the provider's raw signature goes into the CMS object (with a signature
   timestamp when a TSA is given: B-T), which goes into the space reserved in /Contents.

pyHanko's errors are the seal's (esign.engine.seal.pyhanko_errors): TimestampUnavailable,
SealError...

Pure Python (no Django).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any

from asn1crypto import algos, cms
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import signers
from pyhanko.sign.signers.pdf_byterange import PreparedByteRangeDigest
from pyhanko.sign.signers.pdf_cms import PdfCMSSignedAttributes
from pyhanko.sign.signers.pdf_signer import PdfTBSDocument, PostSignInstructions
from pyhanko.sign.timestamps import TimeStamper
from pyhanko_certvalidator.registry import SimpleCertificateStore

from esign.engine.seal import (
    B_B_OVERHEAD_BYTES,
    DIGEST,
    TIMESTAMP_TOKEN_BYTES,
    pades_metadata,
    pyhanko_errors,
    run_coroutine,
)


@dataclass
class PendingSignature:
    """A prepared document waiting for its signature value: ``to_sign`` is the SHA-256 the
    provider signs."""

    to_sign: bytes
    certificate: asn1_x509.Certificate
    chain: tuple[asn1_x509.Certificate, ...]
    signed_attrs: cms.CMSAttributes = field(repr=False)
    prepared: PreparedByteRangeDigest = field(repr=False)
    output: IO[bytes] = field(repr=False)
    instructions: PostSignInstructions | None = field(repr=False)


def _mechanism(certificate: asn1_x509.Certificate) -> algos.SignedDigestAlgorithm:
    name = "sha256_rsa" if certificate.public_key.algorithm == "rsa" else "sha256_ecdsa"
    return algos.SignedDigestAlgorithm({"algorithm": name})


def _signer(
    certificate: asn1_x509.Certificate,
    chain: Sequence[asn1_x509.Certificate],
    value: bytes | int,
) -> signers.ExternalSigner:
    return signers.ExternalSigner(
        signing_cert=certificate,
        cert_registry=SimpleCertificateStore.from_certs(list(chain)),
        signature_value=value,
        signature_mechanism=_mechanism(certificate),
    )


def prepare_remote(
    pdf: bytes,
    *,
    certificate: asn1_x509.Certificate,
    chain: Sequence[asn1_x509.Certificate],
    signing_time: datetime,
    field_name: str,
    reason: str = "",
    location: str = "",
    timestamped: bool = False,
) -> PendingSignature:
    """``pdf`` prepared for a signature by ``certificate``'s remote key (see the module)."""
    if signing_time.tzinfo is None:
        raise ValueError("signing_time must be aware")
    with pyhanko_errors():
        return run_coroutine(
            _prepare(
                pdf,
                certificate,
                tuple(chain),
                signing_time,
                field_name,
                reason,
                location,
                timestamped,
            )
        )


async def _prepare(
    pdf: bytes,
    certificate: asn1_x509.Certificate,
    chain: tuple[asn1_x509.Certificate, ...],
    signing_time: datetime,
    field_name: str,
    reason: str,
    location: str,
    timestamped: bool,
) -> PendingSignature:
    key_bytes = (certificate.public_key.bit_size + 7) // 8
    signer = _signer(certificate, chain, key_bytes)
    meta = pades_metadata(field_name, reason, location)
    pdf_signer = signers.PdfSigner(meta, signer=signer)
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
    reserved = sum(len(c.dump()) for c in (certificate, *chain)) + B_B_OVERHEAD_BYTES
    if timestamped:
        reserved += TIMESTAMP_TOKEN_BYTES
    session = pdf_signer.init_signing_session(writer)
    session.system_time = signing_time  # the claimed time (/M): the caller's clock
    validation = await session.perform_presign_validation(writer)
    document = session.prepare_tbs_document(validation_info=validation, bytes_reserved=2 * reserved)
    prepared, output = document.digest_tbs_document()
    signed_attrs = await signer.signed_attrs(
        prepared.document_digest,
        DIGEST,
        attr_settings=PdfCMSSignedAttributes(signing_time=signing_time),
        use_pades=True,
    )
    return PendingSignature(
        to_sign=hashlib.sha256(signed_attrs.dump()).digest(),
        certificate=certificate,
        chain=chain,
        signed_attrs=signed_attrs,
        prepared=prepared,
        output=output,
        instructions=document.post_sign_instructions,
    )


def finish_remote(
    pending: PendingSignature, signature: bytes, *, timestamper: TimeStamper | None = None
) -> bytes:
    """The signed file: ``pending``'s document with the provider's ``signature`` of its
    ``to_sign`` embedded (and, with ``timestamper``, a signature timestamp)."""
    with pyhanko_errors():
        return run_coroutine(_finish(pending, signature, timestamper))


async def _finish(
    pending: PendingSignature, signature: bytes, timestamper: TimeStamper | None
) -> bytes:
    signer = _signer(pending.certificate, pending.chain, signature)
    content: Any = await signer.async_sign_prescribed_attributes(
        DIGEST, signed_attrs=pending.signed_attrs, timestamper=timestamper
    )
    await PdfTBSDocument.async_finish_signing(
        pending.output, pending.prepared, content, post_sign_instr=pending.instructions
    )
    pending.output.seek(0)
    return bytes(pending.output.read())
