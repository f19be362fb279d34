"""Qualified signers' signatures: made through the organization's CSC v2 provider while the
signer is there to consent (esign.signing.qualified_views), once the documents are final.

A ``qualified`` signer signs last (esign.packets.signature_levels), so their finish completes the
packet with every mark drawn. The packet's seal then waits (``qualified_pending``) while they
consent at their provider and type their PIN and one-time code; ``qualified_sign`` adds, to
each document, the advanced signers' signatures (in routing order, as the seal would:
esign.sealing.signer_signatures), then theirs, made by the provider's ``signHash`` over hashes
of all the documents authorized at once, stores the signed documents as the packet's current
ones, and enqueues the seal, which covers everything with the service's seal and archive
timestamp.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.background import enqueue_in_transaction
from core.blobs import blob_save
from esign.engine.csc_client import Credential, authorize, sign_hash
from esign.engine.remote_pades import finish_remote, prepare_remote
from esign.engine.signer_certificates import certificate_summary
from esign.engine.timestamps import FallbackTimeStamper
from esign.models import Packet, PacketDocument, Signer
from esign.packets.audit import AuditAction
from esign.packets.documents import document_pdf
from esign.packets.lifecycle import audit
from esign.sealing.config import configured_roots, tsa_config
from esign.sealing.signer_signatures import (
    SignerSignatures,
    certificate_detail,
    field_name_of,
)
from esign.signature_models import SignatureLevel, SignerCertificate
from esign.signature_providers import ProviderChoice, csc_policy
from esign.task_names import PACKET_SEAL


def qualified_pending(packet_id: int) -> bool:
    """Whether a qualified signer of the packet finished but has not signed with their
    credential yet: the seal waits for them."""
    return (
        Signer.objects.filter(
            packet_id=packet_id,
            status=Signer.Status.COMPLETED,
            signature_level__level=SignatureLevel.QUALIFIED,
        )
        .exclude(signature_certificates__isnull=False)
        .exists()
    )


def needs_qualified_signature(signer: Signer) -> bool:
    return (
        signer.status == Signer.Status.COMPLETED
        and getattr(getattr(signer, "signature_level", None), "level", "")
        == SignatureLevel.QUALIFIED
        and not SignerCertificate.objects.filter(signer=signer).exists()
    )


def qualified_sign(
    signer: Signer,
    *,
    choice: ProviderChoice,
    access: str,
    credential: Credential,
    pin: str,
    otp: str,
) -> None:
    """Sign every document of ``signer``'s packet with their credential (see the module).
    Raises CscError (nothing stored) when the provider refuses."""
    packet = Packet.objects.select_related("organization").get(pk=signer.packet_id)
    tsa = tsa_config()
    timestamper = FallbackTimeStamper(tsa) if tsa is not None else None
    location = settings.PUBLIC_BASE_URL.split("://", 1)[-1]
    advanced = SignerSignatures(
        packet, timestamper=timestamper, trust_roots=configured_roots(), location=location
    )
    documents = list(packet.documents.all())
    prepared = {d.pk: advanced.sign(document_pdf(d), d) for d in documents}
    at = timezone.now()
    field_name = field_name_of(signer)
    pending = [
        prepare_remote(
            prepared[d.pk],
            certificate=credential.certificate,
            chain=credential.chain,
            signing_time=at,
            field_name=field_name,
            reason=f"Signed by {signer.name}",
            location=location,
            timestamped=timestamper is not None,
        )
        for d in documents
    ]
    hashes = [p.to_sign for p in pending]
    policy = csc_policy()
    sad = authorize(choice.provider, access, credential, hashes, pin=pin, otp=otp, policy=policy)
    values = sign_hash(choice.provider, access, credential, sad, hashes, policy=policy)
    signed = [
        finish_remote(p, v, timestamper=timestamper) for p, v in zip(pending, values, strict=True)
    ]
    prefix = f"packets/{packet.organization.eid}/{packet.eid}"
    stored = [blob_save(prefix=prefix, data=pdf) for pdf in signed]
    summary = certificate_summary(credential.certificate)
    with transaction.atomic():
        locked = Signer.objects.select_for_update().get(pk=signer.pk)
        if SignerCertificate.objects.filter(signer=locked).exists():
            return  # another request signed first; its documents stand
        for document, (path, sha) in zip(documents, stored, strict=True):
            PacketDocument.objects.filter(pk=document.pk).update(
                current_path=path, current_sha256=sha
            )
            advanced.record(document)
            SignerCertificate.objects.create(
                signer=locked,
                document=document,
                level=SignatureLevel.QUALIFIED,
                field_name=field_name,
                subject=summary["subject"][:500],
                issuer=summary["issuer"][:500],
                serial=summary["serial"],
                certificate=credential.certificate.dump(),
                signed_at=at,
            )
            audit(
                packet=packet,
                signer=locked,
                action=AuditAction.SIGNER_CERTIFIED,
                detail=certificate_detail(
                    SignatureLevel.QUALIFIED, summary, document.title, field_name
                )
                | {"provider": choice.name},
            )
        # The seal has waited for this signature (qualified_pending): now it can run.
        enqueue_in_transaction(PACKET_SEAL, packet_id=packet.pk)
