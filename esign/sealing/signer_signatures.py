"""Signers' own PAdES signatures, added to each document just before the seal.

A signer whose ``signatureLevel`` is ``advanced`` (esign.signature_models) signs each document
with a certificate of their own: the signer CA (esign.sealing.signer_ca) issues them one, valid
for an hour around that moment, for a key made for the occasion and dropped afterwards
(esign.engine.signer_certificates). The signatures are made once every signer's marks are drawn
(stamping rewrites the file: an earlier signature would break), in routing order, each an
incremental update of the one before (so none changes the bytes an earlier one signed), with a
signature timestamp and its chain's validation data when TSAs are configured (B-LT); then the
seal and its archive timestamp cover them all (B-LTA), as for every packet.

One ``SignerSignatures`` per sealing attempt: each signer's certificate is issued once for the
attempt and signs every document of it. ``record`` keeps each signature's certificate
(``SignerCertificate``) and the signer's audit event once its document is stored.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from asn1crypto import crl as asn1_crl
from asn1crypto import x509 as asn1_x509
from django.db import IntegrityError, transaction
from django.utils import timezone
from pyhanko.sign.validation.dss import DocumentSecurityStore

from esign.engine.seal import seal_document
from esign.engine.seal_credentials import load_credentials
from esign.engine.signer_certificates import (
    IssuedCertificate,
    SignerIdentity,
    certificate_summary,
    issue_crl,
    issue_signer_certificate,
)
from esign.engine.timestamps import FallbackTimeStamper
from esign.models import Packet, PacketDocument, Signer
from esign.packets.audit import AuditAction
from esign.packets.lifecycle import audit
from esign.sealing.signer_ca import signer_ca_key
from esign.signature_models import SignatureLevel, SignerCertificate


@dataclass
class _Made:
    signer: Signer
    level: str
    field_name: str
    certificate: asn1_x509.Certificate
    at: datetime


def certified_signers(packet: Packet) -> list[tuple[Signer, str]]:
    """The packet's signers who signed with a certificate of their own, in routing order, and
    their level."""
    signers = (
        Signer.objects.filter(
            packet=packet, status=Signer.Status.COMPLETED, signature_level__isnull=False
        )
        .select_related("signature_level")
        .order_by("routing_order", "completed_at", "id")
    )
    return [(s, s.signature_level.level) for s in signers]


def field_name_of(signer: Signer) -> str:
    """The signature field of ``signer``: readable in a PDF viewer's signature panel, and
    unique in the packet (aliases are)."""
    alias = re.sub(r"[^A-Za-z0-9_-]", "_", signer.alias_id)[:60]
    return f"Signature{signer.routing_order}_{alias}"


class SignerSignatures:
    """The advanced signers' signatures of one sealing attempt."""

    def __init__(
        self,
        packet: Packet,
        *,
        timestamper: FallbackTimeStamper | None,
        trust_roots: Sequence[asn1_x509.Certificate],
        location: str,
    ) -> None:
        self.signers = [
            (s, level) for s, level in certified_signers(packet) if level == SignatureLevel.ADVANCED
        ]
        self.timestamper = timestamper
        self.trust_roots = list(trust_roots)
        self.location = location
        self._issued: dict[int, IssuedCertificate] = {}
        self._made: dict[int | None, list[_Made]] = {}
        # Opened now, before the caller opens the seal's key (see esign.sealing.seal).
        self._ca = load_credentials(signer_ca_key()) if self.signers else None

    def _certificate(self, signer: Signer, at: datetime) -> IssuedCertificate:
        issued = self._issued.get(signer.pk)
        if issued is None:
            identity = SignerIdentity(
                name=signer.name, email=signer.email, phone=signer.verify_phone
            )
            ca = self._ca or load_credentials(signer_ca_key())
            issued = issue_signer_certificate(identity, ca=ca, at=at)
            self._issued[signer.pk] = issued
        return issued

    def sign(self, pdf: bytes, document: PacketDocument | None) -> bytes:
        """``pdf`` with each advanced signer's signature appended, in routing order (``pdf``
        itself when there is none). ``document``: whose certificates ``record`` keeps (None: the
        merged PDF, whose signatures are those of the documents')."""
        made: list[_Made] = []
        done: set[int] = set()
        if document is not None:  # signed already, before a qualified signer's signature
            done = set(
                SignerCertificate.objects.filter(document=document).values_list(
                    "signer_id", flat=True
                )
            )
        for signer, level in self.signers:
            if signer.pk in done:
                continue
            at = timezone.now()
            issued = self._certificate(signer, at)
            field_name = field_name_of(signer)
            pdf = seal_document(
                pdf,
                credentials=issued.credentials,
                signing_time=at,
                tsa=self.timestamper,
                trust_roots=[*self.trust_roots, *issued.credentials.roots],
                reason=f"Signed by {signer.name}",
                location=self.location,
                field_name=field_name,
                archive_timestamp=False,
            ).pdf
            made.append(_Made(signer, level, field_name, issued.certificate, at))
        self._made[document.pk if document is not None else None] = made
        if made and self.timestamper is not None:
            pdf = self._revocation_data(pdf)
        return pdf

    def _revocation_data(self, pdf: bytes) -> bytes:
        """The signer CA's CRL in the document security store, an incremental update of its
        own (what PAdES allows after a signature): long-term validation finds revocation data
        for the one-hour certificates there (esign.engine.signer_certificates.issue_crl)."""
        ca = load_credentials(signer_ca_key())
        crl = issue_crl(ca, at=timezone.now())
        output = io.BytesIO(pdf)
        DocumentSecurityStore.add_dss(
            output, None, crls=[asn1_crl.CertificateList.load(crl)], certs=[ca.certificate]
        )
        return output.getvalue()

    def record(self, document: PacketDocument) -> None:
        """Keep the certificates of ``document``'s signatures (once it is stored sealed), and
        say in each signer's audit trail what they signed it with."""
        for made in self._made.pop(document.pk, []):
            summary = certificate_summary(made.certificate)
            try:
                with transaction.atomic():
                    SignerCertificate.objects.create(
                        signer=made.signer,
                        document=document,
                        level=made.level,
                        field_name=made.field_name,
                        subject=summary["subject"][:500],
                        issuer=summary["issuer"][:500],
                        serial=summary["serial"],
                        certificate=made.certificate.dump(),
                        signed_at=made.at,
                    )
                    audit(
                        packet=document.packet,
                        signer=made.signer,
                        action=AuditAction.SIGNER_CERTIFIED,
                        detail=certificate_detail(
                            made.level, summary, document.title, made.field_name
                        ),
                    )
            except IntegrityError:
                pass  # recorded by an attempt that stored this document first


def certificate_detail(
    level: str, summary: dict[str, str], document: str, field_name: str
) -> dict[str, Any]:
    return {
        "level": level,
        "document": document,
        "fieldName": field_name,
        "certificate": {k: summary[k] for k in ("subject", "issuer", "serial")},
    }
