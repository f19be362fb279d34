"""What a certificate of completion says (esign.engine.audit_trail draws it): the packet, its
documents, attached files and signers with their events, every value formatted by the caller,
and the record's own words in its reader's language (``TrailLabels``, English by default).

Pure Python (no Django).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class TrailLabels:
    """The words of the record, in its reader's language. "{name}" marks a value put in."""

    title: str = "Certificate of completion"
    document_title: str = "Certificate of completion: {packet}"
    document_subject: str = "Audit trail of packet {packet}"
    packet: str = "Packet"
    organization: str = "Organization"
    status: str = "Status"
    created: str = "Created"
    completed: str = "Completed"
    sealed_by: str = "Sealed by"
    record_made: str = "This record made"
    test_packet: str = "Test packet: its documents are marked as not legally binding."
    documents: str = "Documents"
    documents_note: str = (
        "SHA-256 of each PDF before anyone signed, and of the sealed PDF delivered to the "
        "signers. A file whose SHA-256 differs is not the one recorded here."
    )
    one_page: str = "{count} page"
    pages: str = "{count} pages"
    before_signing: str = "Before signing"
    sealed: str = "Sealed"
    signers: str = "Signers"
    email: str = "Email"
    none: str = "(none)"
    routing_order: str = "Routing order"
    signed: str = "Signed"
    not_signed: str = "(not signed)"
    adopted_signature: str = "Adopted signature"
    none_adopted: str = "(none adopted)"
    drawn: str = "drawn"
    typed: str = "typed"
    packet_history: str = "Packet history"
    time: str = "Time (UTC)"
    event: str = "Event"
    ip_address: str = "IP address"
    user_agent: str = "User agent"
    detail: str = "Detail"
    footer_packet: str = "packet {packet}"
    # Files signers attached (an extension, esign.signing.attachments).
    attachments: str = "Attached files"
    attachments_note: str = (
        "Files the signers attached, as the zip holds them, with the SHA-256 of each. A file "
        "whose SHA-256 differs is not the one recorded here."
    )
    attached_by: str = "Attached by {signer}, {time}"
    role: str = "Role"  # an approver's or a viewer's, who sign nothing
    signature_level: str = "Signature level"  # signatureLevel (issue 51)
    footer_page: str = "page {page} of {pages}"
    # The reader's language is written right to left (Arabic, Hebrew): the page is mirrored,
    # each label, value and column starting from the right margin.
    right_to_left: bool = False
    # A packet's or signer's status (the wire's value) as the reader says it; missing: as is.
    statuses: Mapping[str, str] = field(default_factory=dict)

    def status_of(self, value: str) -> str:
        return self.statuses.get(value, value)


@dataclass(frozen=True)
class TrailEvent:
    at: str  # formatted by the caller, e.g. "2026-03-04 05:06:07 UTC"
    action: str  # for people: "Opened the signing link"
    ip: str = ""
    user_agent: str = ""
    detail: str = ""


@dataclass(frozen=True)
class TrailDocument:
    title: str
    filename: str
    pages: int
    prepared_sha256: str
    sealed_sha256: str


@dataclass(frozen=True)
class TrailAttachment:
    """A file a signer attached: every value formatted by the caller."""

    label: str  # the attachment field's label
    filename: str
    size: str  # "2.4 MB"
    sha256: str
    signer: str
    attached_at: str


@dataclass(frozen=True)
class TrailSigner:
    name: str
    email: str
    routing_order: int
    status: str
    completed_at: str
    signature_png: bytes | None = field(default=None, repr=False)  # a drawn signature
    signature_text: str = ""  # a typed one
    events: tuple[TrailEvent, ...] = ()
    # An approver's or a viewer's role, in the reader's language: they sign nothing, so their
    # entry has no signature; "" for a signer or a witness.
    role: str = ""
    # A signer's signatureLevel in the reader's language ("advanced electronic signature"...);
    # "": not shown.
    signature_level: str = ""


@dataclass(frozen=True)
class AuditTrail:
    packet_name: str
    packet_eid: str
    organization: str
    status: str
    is_test: bool
    created_at: str
    completed_at: str
    generated_at: datetime  # aware: when this record was made (also the PDF's CreationDate)
    sealed_by: str  # the seal certificate's subject, for the reader
    documents: tuple[TrailDocument, ...]
    signers: tuple[TrailSigner, ...]
    packet_events: tuple[TrailEvent, ...] = ()
    labels: TrailLabels = TrailLabels()
    attachments: tuple[TrailAttachment, ...] = ()
