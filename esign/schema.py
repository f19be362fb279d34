"""GraphQL of e-signature packets, under the wire names: etchPacket, createEtchPacket,
sendEtchPacket, generateEtchSignURL, expireSignerTokens, voidDocumentGroup, removeEtchPacket, and
the extensions resendEtchSignerEmail, extendEtchPacket and reassignEtchSigner."""

from __future__ import annotations

from typing import Any

import graphene
from django.conf import settings
from django.urls import reverse

from accounts.identity import ApiIdentity
from core.errors import NotFound
from core.graphql.fields import by_eid
from core.graphql.mutations import ServiceMutation
from core.graphql.resolvers import or_none
from core.graphql.scalars import JSON, DateTime, Upload
from esign.links import tokens
from esign.links.emails import signer_email_resend
from esign.models import DocumentGroup, Packet, Signer
from esign.packets import lookups
from esign.packets.groups import group_signed_by
from esign.packets.inputs import parse_packet_input
from esign.packets.signature_levels import signer_level
from esign.sending import packets as services
from esign.sending.expiry import packet_extend
from esign.sending.intake import packet_intake_check
from esign.signing.attachments import signer_attachments
from esign.signing.forwarding import signer_reassign
from esign.signing.turns import packet_send


class SignerAttachmentType(graphene.ObjectType):
    """Extension: one of a signer's attachment fields and the file attached to it
    (esign.signing.attachments); the file's keys are null until the signer attaches one."""

    class Meta:
        name = "SignerAttachment"

    field_id = graphene.String()
    label = graphene.String()
    required = graphene.Boolean()
    accepted_types = graphene.List(graphene.String)
    max_bytes = graphene.Float()
    filename = graphene.String()
    content_type = graphene.String()
    size = graphene.Float()
    sha256 = graphene.String()


def _signer_attachments(signer: Signer) -> list[dict[str, Any]]:
    out = []
    for field in signer_attachments(signer):
        file = field["file"] or {}
        out.append(
            {
                "field_id": field["id"],
                "label": field["label"],
                "required": field["required"],
                "accepted_types": field["acceptedTypes"],
                "max_bytes": field["maxBytes"],
                "filename": file.get("filename"),
                "content_type": file.get("contentType"),
                "size": file.get("size"),
                "sha256": file.get("sha256"),
            }
        )
    return out


class EtchSignerType(graphene.ObjectType):
    class Meta:
        name = "Signer"

    id = graphene.ID(source="eid")
    eid = graphene.String()
    alias_id = graphene.String()
    routing_order = graphene.Int()
    name = graphene.String()
    email = graphene.String()
    status = graphene.String()
    sign_action_type = graphene.String(source="signer_type")
    completed_at = DateTime()
    # Extensions: signing groups and witnesses (esign.packets.groups).
    role = graphene.String()
    witness_for = graphene.String(resolver=or_none("witness_for"))
    group = graphene.Field(lambda: SigningGroupType)
    attachments = graphene.List(SignerAttachmentType)  # extension (esign.signing.attachments)
    # Extensions (esign.signing.forwarding): whether they may forward their turn from the signing
    # page, and the signers a forward or a reassignment links them to.
    allow_forward = graphene.Boolean()
    allow_updates = graphene.Boolean()  # extension (esign.packets.updates)
    signature_level = graphene.String()  # extension (esign.packets.signature_levels)
    forwarded_from = graphene.Field(lambda: EtchSignerType)
    forwarded_to = graphene.Field(lambda: EtchSignerType)

    @staticmethod
    def resolve_group(signer: Signer, info: Any) -> Signer | None:
        return signer if signer.signing_group else None

    @staticmethod
    def resolve_attachments(signer: Signer, info: Any) -> list[dict[str, Any]]:
        return _signer_attachments(signer)

    @staticmethod
    def resolve_forwarded_to(signer: Signer, info: Any) -> Signer | None:
        return Signer.objects.filter(forwarded_from=signer).first()

    @staticmethod
    def resolve_signature_level(signer: Signer, info: Any) -> str:
        return signer_level(signer)


class SigningGroupType(graphene.ObjectType):
    """A signer's signing group (an extension), resolved from the signer."""

    class Meta:
        name = "SigningGroup"

    id = graphene.String(source="signing_group")
    required = graphene.Int(source="signing_group_required")
    signed_by = graphene.List(EtchSignerType)

    @staticmethod
    def resolve_signed_by(signer: Signer, info: Any) -> list[Signer]:
        return group_signed_by(signer)


class DocumentGroupType(graphene.ObjectType):
    class Meta:
        name = "DocumentGroup"

    id = graphene.ID(source="eid")
    eid = graphene.String()
    status = graphene.String()
    files = JSON()
    download_zip_url = graphene.String(name="downloadZipURL")
    signers = graphene.List(EtchSignerType)

    @staticmethod
    def resolve_files(group: DocumentGroup, info: Any) -> list[dict[str, Any]]:
        return [
            {
                "id": document.alias_id,
                "name": document.title or document.filename,
                "filename": document.filename,
                "title": document.title,
                "type": "pdf",
                "source": document.source,
                "pages": document.page_count,
            }
            for document in group.packet.documents.all()
        ]

    @staticmethod
    def resolve_download_zip_url(group: DocumentGroup, info: Any) -> str:
        return settings.PUBLIC_BASE_URL + reverse("esign-download-zip", args=[group.eid])

    @staticmethod
    def resolve_signers(group: DocumentGroup, info: Any) -> list[Signer]:
        return list(group.packet.signers.all())


class SealErrorType(graphene.ObjectType):
    class Meta:
        name = "SealError"

    code = graphene.String(source="seal_error_code")
    message = graphene.String(source="seal_error_message")


class EtchPacketType(graphene.ObjectType):
    class Meta:
        name = "EtchPacket"

    id = graphene.ID(source="eid")
    eid = graphene.String()
    name = graphene.String()
    status = graphene.String()
    is_test = graphene.Boolean()
    allow_updates = graphene.Boolean()
    number_remaining_signers = graphene.Int()
    details_url = graphene.String(name="detailsURL")
    webhook_url = graphene.String(name="webhookURL", resolver=or_none("webhook_url"))
    completed_at = DateTime()
    archived_at = DateTime()
    created_at = DateTime()
    updated_at = DateTime()
    document_group = graphene.Field(DocumentGroupType)
    # Extensions: where the seal of the completed packet's documents stands.
    seal_status = graphene.String(resolver=or_none("seal_status"))
    seal_level = graphene.String(resolver=or_none("seal_level"))
    sealed_at = DateTime()
    seal_error = graphene.Field(lambda: SealErrorType)
    seal_retry_at = DateTime()
    # Extension: when nobody may sign any more (null: never); see esign.sending.expiry.
    expires_at = DateTime()
    # Extension: its email signers may forward their turn (esign.signing.forwarding).
    allow_forward = graphene.Boolean()
    # Extension: the sealed documents carry a verification mark (esign.engine.verification_mark).
    verification_stamp = graphene.Boolean()

    @staticmethod
    def resolve_seal_error(packet: Packet, info: Any) -> Packet | None:
        return packet if packet.seal_error_code else None

    @staticmethod
    def resolve_number_remaining_signers(packet: Packet, info: Any) -> int:
        return services.remaining_signers(packet)

    @staticmethod
    def resolve_details_url(packet: Packet, info: Any) -> str:
        return settings.PUBLIC_BASE_URL + reverse("admin:esign_packet_change", args=[packet.pk])

    @staticmethod
    def resolve_archived_at(packet: Packet, info: Any) -> None:
        return None  # packets are not archived here (kept until removed); the clients ask for it


class EtchFileInput(graphene.InputObjectType):
    """One file of a packet: a template reference, an uploaded PDF, HTML or Markdown."""

    class Meta:
        name = "EtchFile"

    id = graphene.String(required=True)
    title = graphene.String()
    filename = graphene.String()
    cast_eid = graphene.String()
    file = Upload()
    base64_file = Upload(name="base64File")
    fields = graphene.List(JSON)
    font_size = graphene.Int()
    text_color = graphene.String()
    markup = JSON()


class Query(graphene.ObjectType):
    etch_packet = by_eid(EtchPacketType, lookups.packet_get)


class CreateEtchPacket(ServiceMutation):
    class Arguments:
        name = graphene.String()
        organization_eid = graphene.String()
        files = graphene.List(graphene.NonNull(EtchFileInput))
        is_draft = graphene.Boolean()
        is_test = graphene.Boolean()
        signature_email_subject = graphene.String()
        signature_email_body = graphene.String()
        signature_provider = graphene.String()
        signature_page_options = JSON()
        signers = graphene.List(graphene.NonNull(JSON))
        data = JSON()
        webhook_url = graphene.String(name="webhookURL")
        reply_to_name = graphene.String()
        reply_to_email = graphene.String()
        enable_emails = JSON()
        create_cast_templates_from_uploads = graphene.Boolean()
        duplicate_casts = graphene.Boolean()
        merge_pdfs = graphene.Boolean(name="mergePDFs")
        allow_updates = graphene.Boolean()
        reminder_days = graphene.Int(
            description="Extension: email signers who have not signed a reminder every this "
            "many days (1-365), until they sign or the packet ends."
        )
        language = graphene.String(
            # Every shipped language, from the setting the packet's parser checks against.
            description="Extension: the language of the signers' pages and emails and of the "
            "audit trail, one of "
            + ", ".join(f"`{code}`" for code, _name in settings.LANGUAGES)
            + " (a signer's own `language` overrides it for them). Without it, pages follow "
            "the browser's Accept-Language; emails and the audit trail are in English."
        )
        # Extensions (esign.sending.expiry, esign.signing.forwarding), typed so that a client
        # declares `$expiresInDays: Int`; their ranges are checked by the packet's parser.
        expires_at = DateTime()
        expires_in_days = graphene.Int()
        allow_forward = graphene.Boolean()
        verification_stamp = graphene.Boolean()

    Output = EtchPacketType

    # esign.packets.inputs reads the arguments as sent, the shape createEtchPacketBatch and the MCP
    # tool give as JSON, and names its problems by them.
    arguments_as_sent = True

    @classmethod
    def perform(cls, identity: ApiIdentity, arguments: dict[str, Any]) -> Packet:
        organization_eid = arguments.get("organizationEid")
        if organization_eid and organization_eid != identity.organization.eid:
            raise NotFound(f"No organization with eid '{organization_eid}'.")
        packet_intake_check()  # before the files are read: a refusal costs next to nothing
        return services.packet_create(
            organization=identity.organization,
            watermark=identity.is_development,
            packet_input=parse_packet_input(arguments),
        )


class SendEtchPacket(ServiceMutation):
    class Arguments:
        eid = graphene.String(required=True)

    Output = EtchPacketType

    @classmethod
    def perform(cls, identity: ApiIdentity, *, eid: str) -> Packet:
        packet = lookups.packet_get(organization=identity.organization, eid=eid)
        return packet_send(packet=packet)


class GenerateEtchSignUrl(ServiceMutation):
    class Arguments:
        signer_eid = graphene.String(required=True)
        client_user_id = graphene.String(required=True)

    Output = graphene.String

    @classmethod
    def perform(cls, identity: ApiIdentity, *, signer_eid: str, client_user_id: str) -> str:
        return tokens.sign_url_generate(
            identity=identity, signer_eid=signer_eid, client_user_id=client_user_id
        )


class ExpireSignerTokens(ServiceMutation):
    class Arguments:
        signer_eid = graphene.String(required=True)

    Output = graphene.Boolean

    @classmethod
    def perform(cls, identity: ApiIdentity, *, signer_eid: str) -> bool:
        tokens.signer_tokens_expire(identity=identity, signer_eid=signer_eid)
        return True


class VoidDocumentGroup(ServiceMutation):
    class Arguments:
        eid = graphene.String(required=True)

    Output = EtchPacketType

    @classmethod
    def perform(cls, identity: ApiIdentity, *, eid: str) -> Packet:
        return services.packet_void(identity=identity, group_eid=eid)


class RemoveEtchPacket(ServiceMutation):
    class Arguments:
        eid = graphene.String(required=True)

    Output = graphene.Boolean

    @classmethod
    def perform(cls, identity: ApiIdentity, *, eid: str) -> bool:
        return services.packet_remove(identity=identity, eid=eid)


class ResendEtchSignerEmail(ServiceMutation):
    """Extension: email a new signing link to an email signer whose turn it is. False when they
    do not get emails, it is not their turn, or one is on its way; a RateLimitError (429, with
    Retry-After) past the cap on new links per signer (esign.links.limits)."""

    class Arguments:
        signer_eid = graphene.String(required=True)

    Output = graphene.Boolean

    @classmethod
    def perform(cls, identity: ApiIdentity, *, signer_eid: str) -> bool:
        signer = lookups.signer_get(organization=identity.organization, eid=signer_eid)
        return signer_email_resend(signer=signer, requested_by=f"API key {identity.api_key.prefix}")


class ExtendEtchPacket(ServiceMutation):
    """Extension: the packet expires at ``expiresAt`` instead (a draft, open or expired packet).
    An expired packet re-opens: its signers whose turn it was are asked again and emailed a new
    link (within the per-signer cap on new links: past it, RateLimitError and nothing changes).
    """

    class Arguments:
        eid = graphene.String(required=True)
        expires_at = graphene.String(required=True)

    Output = EtchPacketType

    @classmethod
    def perform(cls, identity: ApiIdentity, *, eid: str, expires_at: str) -> Packet:
        return packet_extend(identity=identity, eid=eid, expires_at=expires_at)


class ReassignEtchSigner(ServiceMutation):
    # Extension: the signer's turn goes to someone else (esign.signing.forwarding). Described in
    # esign/graphql_docs.py (a docstring here would be the schema's description instead).

    class Arguments:
        signer_eid = graphene.String(required=True)
        # Not required in the schema: a missing or bad value is a ValidationError naming it.
        name = graphene.String()
        email = graphene.String()

    Output = EtchSignerType

    @classmethod
    def perform(
        cls, identity: ApiIdentity, *, signer_eid: str, name: Any = None, email: Any = None
    ) -> Signer:
        return signer_reassign(identity=identity, signer_eid=signer_eid, name=name, email=email)


class Mutation(graphene.ObjectType):
    create_etch_packet = CreateEtchPacket.Field()
    send_etch_packet = SendEtchPacket.Field()
    generate_etch_sign_url = GenerateEtchSignUrl.Field(name="generateEtchSignURL")
    expire_signer_tokens = ExpireSignerTokens.Field()
    void_document_group = VoidDocumentGroup.Field()
    remove_etch_packet = RemoveEtchPacket.Field()
    resend_etch_signer_email = ResendEtchSignerEmail.Field()
    extend_etch_packet = ExtendEtchPacket.Field()
    reassign_etch_signer = ReassignEtchSigner.Field()
