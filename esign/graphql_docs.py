"""The wire descriptions of esign's GraphQL (esign/schema.py): its operations, their arguments
(with the shapes inside the JSON ones, which the published clients fix as JSON) and the types
they return, as GraphiQL, the SDL and /api/docs show them."""

from __future__ import annotations

from typing import Any

from esign.engine.data_model import data_schema
from esign.engine.file_model import FileModel, file_schema
from esign.engine.option_model import options_schema
from esign.engine.signer_model import signer_schema

# --- shapes inside JSON arguments ---------------------------------------------------------------


def signer_json_schema() -> dict[str, Any]:
    """The JSON Schema of one signer of ``signers`` and of the objects inside it, by name
    (esign.engine.signer_model, which the parser checks signers with): the MCP tool
    create_packet's ``signers`` items. SIGNER_SHAPE below says the same for a reader; a test
    (tests/esign/test_signer_model.py) holds its keys and example to the model."""
    return signer_schema()


def file_json_schema() -> dict[str, Any]:
    """The JSON Schema of one file of ``files`` and of the objects inside it, by name
    (esign.engine.file_model, which the parser checks files with): the MCP tool create_packet's
    ``files`` items. FILE_FIELD_SHAPE below shows a field for a reader; a test
    (tests/esign/test_file_model.py) holds its keys to the model's."""
    return file_schema()


def data_json_schema() -> dict[str, Any]:
    """The JSON Schema of ``data`` and of the objects inside it, by name
    (esign.engine.data_model, which the parser checks it with): the MCP tool create_packet's
    ``data``. DATA_SHAPE below says the same for a reader."""
    return data_schema()


def options_json_schema() -> dict[str, Any]:
    """The JSON Schema of createEtchPacket's own options (esign.engine.option_model, which the
    parser checks them with): the MCP tool create_packet's other arguments."""
    return options_schema()


def _file_says(key: str) -> str:
    """The description of a file's ``key`` (its wire name), as the model declares it."""
    fields = {str(field.alias): field for field in FileModel.model_fields.values()}
    return str(fields[key].description)


SIGNER_SHAPE = """One signer, a JSON object:

```
{
  "id": "client",              # your alias, unique in the packet (default signer1, signer2...)
  "name": "Ada Lovelace",      # required
  "email": "ada@example.com",  # required for an email signer
  "signerType": "email",       # "email" (gets a signing email in turn) or "embedded"
                               #   (no email: ask for a link with generateEtchSignURL)
  "routingOrder": 1,           # whole number from 1 (default: position); signers of one order
                               #   sign in parallel, the next order when all of them finished
  "fields": [{"fileId": "agreement", "fieldId": "sig1"}],
                               # the fields this signer fills: a file's id (files[].id) and the
                               #   id of a field of that file (files[].fields[].id, or a
                               #   template's own signer field); no field given to two signers
  "signatureMode": "draw",     # "draw" (default) or "text" (typed in a handwriting font)
  "acceptEachField": false,    # true: the signer accepts each field one by one
  "redirectURL": "https://app.example.com/signed",
                               # http(s); where the signing page sends the signer when done,
                               #   with signerEid, documentGroupEid, action... in the query
  "enableEmails": true,        # false: no emails to this signer (their copy link included)
  "language": "es",            # extension: the language of this signer's pages and emails, a
                               #   code of createEtchPacket's `language` (default: the packet's)
  "verify": {"method": "sms", "phone": "+44 20 7946 0958"},
                               # extension: a one-time code before the documents: "email"
                               #   (to their email) or "sms" (to phone, international, kept
                               #   in E.164); "integrator" (embedded signers only) asks for
                               #   none: you verified them, recorded as such in the trail
  "group": {"id": "directors", "required": 1},
                               # extension: a signing group, several signers of one step of
                               #   whom `required` (default 1, at most the members) sign for
                               #   it; members share routingOrder, fields (whoever signs first
                               #   fills them) and required. Once enough signed, the others
                               #   are `skipped`, their links ended
  "role": "witness", "witnessFor": "client",
                               # extension: a witness of the signer whose id is witnessFor
                               #   (not a witness, not in a group): a greater routingOrder,
                               #   fields on the pages of that signer's fields; the audit
                               #   trail records whom they witnessed. Default role "signer"
                               # or "role": "approver": no fields; approves (finishes) or
                               #   rejects with a reason (declines the packet); "role":
                               #   "viewer": no fields, never waited for; reads at their
                               #   routingOrder (none given: once the packet completes), and
                               #   has finished when it completes
  "attachments": [{"type": "attachment", "id": "idPhoto", "label": "Photo of your ID",
                   "required": true, "acceptedTypes": ["jpeg", "png"], "maxBytes": 5000000}],
                               # extension: files the signer attaches on the signing page (a
                               #   phone's camera included): id unique for the signer, label
                               #   (default the id), required (default true: no finishing
                               #   without it), acceptedTypes among pdf, png, jpeg (default all;
                               #   heic is refused), maxBytes up to ESIGN_ATTACHMENT_MAX_BYTES
                               #   (the default, 10 MB); at most 10 a signer, 20 a packet.
                               #   Checked by content; stored with the documents; listed with
                               #   their SHA-256 in the sealed audit trail; in the zip under
                               #   attachments/
  "allowForward": true,        # extension: may hand their turn to someone else from the
                               #   signing page (email signers only; default: the packet's
                               #   allowForward); see reassignEtchSigner for the sender's way
  "allowUpdates": true,        # extension: may change the values the sender filled in their
                               #   fields (files[].fields[].value); default: the packet's
  "initialsOnEveryPage": true, # extension: an initials field on every page (true) or on the
                               #   pages of the files listed (["lease"]), at
  "initialsPosition": {"x": 40, "y": 20, "width": 60, "height": 24},
                               #   (default: the template's initials field, else the page's
                               #   bottom right corner); one adopt fills them all
  "signatureLevel": "advanced" # extension: simple (default), advanced (their own PAdES
                               #   signature with a one-hour certificate of the service's
                               #   signer CA) or qualified (with their credential at the
                               #   organization's CSC v2 provider; the last signer only)
}
```

Problems are reported at `signers.<index>.<key>` (e.g. `signers.0.fields.2.fieldId`)."""

FILE_FIELD_SHAPE = """The signer fields placed on this file, JSON objects:

```
{
  "id": "sig1",            # unique in the file; signers name it in signers[].fields
  "type": "signature",     # signature, initial, signatureDate (the date of signing), or a
                           #   value the signer types: shortText, longText, fullName, email,
                           #   date, text, checkbox
  "pageNum": 0,            # page index from 0
  "rect": {"x": 72, "y": 100, "width": 200, "height": 36}
                           # PDF points of that page, origin at the lower left
  "value": "1200 EUR"      # extension, a typed field's only: the sender's value, stamped when
                           #   its signer finishes; they may change it first when
                           #   allowUpdates (the packet's or theirs) says so
}
```

Without castEid, file or markup, objects with `content`, `heading` or `table` (and no `type`)
are Markdown blocks that make the document (as generate-pdf's Markdown)."""

DATA_SHAPE = """Fill data for the template files (files with castEid), a JSON object:

```
{"payloads": {"<file id>": {"data": {"<field alias>": <value>, ...}}}}
```

Each `data` is what `POST /api/v1/fill/<castEid>.pdf` takes as `data` (`cast { exampleData }`
shows one). A template file without a payload is used as it is. A payload may not fill a
signer field."""

MARKUP_SHAPE = """An HTML document instead of a PDF:
`{"html": "<h1>...</h1>", "css": "h1 { ... }"}`, rendered as generate-pdf renders HTML."""

UPLOAD_SHAPE = """A PDF: a part of a GraphQL multipart request (what the clients'
prepareGraphQLFile / `file` send), or inline base64
`{"data": "<base64>", "filename": "a.pdf", "mimetype": "application/pdf"}`. The PDF is opened
and written anew (qpdf), so a damaged or locked file is repaired first. A Word (DOCX),
OpenDocument (ODT) or RTF document (XLSX, ODS, PPTX too), told apart by its content, is converted
to PDF by LibreOffice first and kept beside the packet's PDFs; one that is encrypted, carries
macros or unpacks to too much is refused, naming it."""

# type -> field -> description; a field's argument as "field(argument)". Merged with the other
# apps' in config.graphql_docs and set on the root schema (core.graphql.descriptions).
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "Query": {
        "etchPacket": "A signature packet of the caller's organization, by eid (NotFoundError "
        "otherwise).",
        "etchPacket(eid)": "The packet's eid (createEtchPacket's answer).",
    },
    "Mutation": {
        "createEtchPacket": "Create a signature packet: documents (templates filled with "
        "`data`, uploaded PDFs, HTML or Markdown) with signer fields, and the signers who fill "
        "them in routing order. Sent at once (the first signers' emails go out) unless "
        "`isDraft`. Every problem is reported by argument (`files.1.castEid`, "
        "`signers.0.fields.2.fieldId`) and nothing is stored. A development key makes test "
        "packets (every page marked TEST).",
        "createEtchPacket(name)": "The packet's name, shown to signers and in emails.",
        "createEtchPacket(files)": "The documents, each `{id, ...}` with one source: `castEid` "
        "(a template), `file` / `base64File` (a PDF or Word document), `markup` (HTML) or "
        "Markdown blocks in "
        "`fields`. See the EtchFile type.",
        "createEtchPacket(signers)": SIGNER_SHAPE,
        "createEtchPacket(data)": DATA_SHAPE,
        "createEtchPacket(isDraft)": "true: keep the packet unsent (status draft) until "
        "sendEtchPacket.",
        "createEtchPacket(isTest)": "true: a test packet, every page marked "
        '"TEST — not legally binding" (always, with a development key).',
        "createEtchPacket(webhookURL)": "Where this packet's events go (signerComplete, "
        "etchPacketComplete...) instead of the organization's webhook URL. http(s); a private "
        "or loopback address is refused unless FETCH_ALLOW_HOSTS allows it.",
        "createEtchPacket(mergePDFs)": "true: the sealed result is one PDF of every document "
        "instead of one per document.",
        "createEtchPacket(allowUpdates)": "The signers given a field the sender filled in "
        "(files[].fields[].value) may change it on the signing page before signing (a signer's "
        "own allowUpdates overrides it); the change is audited before and after.",
        "createEtchPacket(signatureEmailSubject)": "The subject of the signing emails.",
        "createEtchPacket(signatureEmailBody)": "A message added to the signing emails.",
        "createEtchPacket(replyToName)": "The name replies to the signing emails go to.",
        "createEtchPacket(replyToEmail)": "The address replies to the signing emails go to.",
        "createEtchPacket(organizationEid)": "The caller's organization's eid, or omitted; "
        "another organization is NotFoundError.",
        "createEtchPacket(signatureProvider)": "Accepted and ignored: this service signs.",
        "createEtchPacket(expiresAt)": "Extension. An ISO 8601 date and time (UTC when it has "
        "no offset), in the future and at most 5 years away, after which nobody may sign: the "
        "signing links are refused at once, the packet and its signers whose turn it was become "
        "`expired`, reminders stop and the `etchPacketExpired` webhook event is sent. "
        "extendEtchPacket moves it. Not with expiresInDays.",
        "createEtchPacket(expiresInDays)": "Extension. A whole number of days from now (1 to "
        "1825) after which the packet expires, as with expiresAt (not with it).",
        "extendEtchPacket": "Extension. Change when the packet expires (a draft, open or expired "
        "packet; a completed, declined or voided one is a Conflict). An expired packet re-opens "
        "(status sent, or partial if someone signed): its expired signers are asked again and "
        "the email signers among them are sent a new link, counted against the per-signer cap "
        "on new links (past it: RateLimitError with Retry-After, and nothing changes). Audited "
        "(packetExtended, packetReopened).",
        "extendEtchPacket(eid)": "The packet's eid.",
        "extendEtchPacket(expiresAt)": "An ISO 8601 date and time in the future, at most 5 "
        "years away; otherwise a ValidationError on expiresAt.",
        "createEtchPacket(allowForward)": "Extension. true: the packet's email signers may "
        "hand their turn to someone else (a name and an email) from the signing page, once: a "
        "new signer takes their fields and routing order and is emailed a link, theirs ends "
        "(status forwarded), the audit trail and the signerForwarded webhook event say who "
        "handed it to whom. A signer's own `allowForward` overrides it; embedded signers never "
        "forward (reassignEtchSigner). A value other than true or false is a ValidationError.",
        "createEtchPacket(verificationStamp)": "Extension. true: each sealed document carries "
        "a verification mark on every page, a small QR code and a short link to /verify naming "
        "the document, drawn before the seal and covered by it, so that a printed copy can be "
        "checked. A value other than true or false is refused by GraphQL (a Boolean).",
        "reassignEtchSigner": "Extension. The sender hands a signer's turn to someone else: a new "
        "signer takes their fields, routing order and options and, if it was their turn, is "
        "emailed a link at once (an embedded one gets a link from generateEtchSignURL); the "
        "signer becomes forwarded and their links end. Returns the new signer (`forwardedFrom` "
        "names the original). Audited (signerForwarded, signerAssigned, with the API key) and "
        "reported by the signerForwarded webhook event. Refused with nothing written: a packet "
        "that ended (completed, declined, voided, expired) or a signer who finished or was "
        "forwarded already (ConflictError); a missing or bad name or email, or an address that "
        "is already one of the packet's signers' (ValidationError on name or email). At most 10 "
        "forwards and reassignments a packet.",
        "reassignEtchSigner(signerEid)": "The signer whose turn is handed on.",
        "reassignEtchSigner(name)": "The new signer's name (required, one line).",
        "reassignEtchSigner(email)": "The new signer's email address: required for an email "
        "signer (and a signer with a code to enter, sent there); optional for an embedded one.",
        "createEtchPacket(signaturePageOptions)": "Accepted and ignored.",
        "createEtchPacket(enableEmails)": "Accepted and ignored; per signer, use "
        "`signers[].enableEmails`.",
        "createEtchPacket(createCastTemplatesFromUploads)": "Accepted and ignored.",
        "createEtchPacket(duplicateCasts)": "Accepted and ignored.",
        "generateEtchSignURL": "A signing link for an embedded signer (signerType "
        '"embedded"): `<base URL>/api/etch/verify/<signer '
        "eid>?token=...`. Open it (or frame it, from an allowed embedding origin) when it is "
        "the signer's turn. It lasts 24 hours; each call makes a new one. A signer who will "
        "not sign (any more) gets none, a ConflictError saying why: they signed already (their "
        "copy is at the signerComplete event's links), were skipped (their signing group's step "
        "was done), declined, were voided, or handed their turn on.",
        "generateEtchSignURL(signerEid)": "The signer's eid (`documentGroup { signers { eid } }` "
        "of the packet).",
        "generateEtchSignURL(clientUserId)": "Your own id for the person who will sign; kept "
        "with the link for your records. Opening the link does not check it.",
        "voidDocumentGroup": "Void an open packet (by its documentGroup's eid): nobody can sign "
        "any more, its signers' links stop working, the events say so. A completed, declined "
        "or voided packet is a ConflictError.",
        "voidDocumentGroup(eid)": "The eid of the packet's documentGroup "
        "(`etchPacket { documentGroup { eid } }`).",
        "removeEtchPacket": "Delete a packet and its stored files (an open one is voided "
        "first); true. A completed packet is kept (ConflictError); a packet that is a "
        "workflow's signing step is refused (void it instead).",
        "removeEtchPacket(eid)": "The packet's eid.",
        "sendEtchPacket": "Send a draft packet (created with isDraft): its first signers' "
        "turn starts.",
        "sendEtchPacket(eid)": "The packet's eid.",
        "expireSignerTokens": "Revoke every signing link of a signer handed out so far.",
        "expireSignerTokens(signerEid)": "The signer's eid.",
        "resendEtchSignerEmail(signerEid)": "The email signer whose turn it is.",
    },
    "EtchFile": {
        # The keys of one line are the model's (esign.engine.file_model); the others show
        # their shape at length.
        **{
            key: _file_says(key)
            for key in ("id", "title", "filename", "castEid", "base64File", "fontSize", "textColor")
        },
        "file": UPLOAD_SHAPE,
        "fields": FILE_FIELD_SHAPE,
        "markup": MARKUP_SHAPE,
    },
    "EtchPacket": {
        "id": "The same as eid.",
        "eid": "The packet's id.",
        "name": "The packet's name.",
        "status": "draft, sent, delivered (a signer has the request), partial (some signed), "
        "completed, declined or voided; or the extension expired (expiresAt passed before "
        "everyone signed; extendEtchPacket re-opens it).",
        "expiresAt": "Extension. When the packet expires (ISO 8601); null: never.",
        "allowForward": "Extension. Its email signers may forward their turn "
        "(createEtchPacket's allowForward).",
        "isTest": "A test packet (pages marked TEST).",
        "verificationStamp": "Extension. Its sealed documents carry a verification mark "
        "(createEtchPacket's verificationStamp).",
        "allowUpdates": "As given to createEtchPacket.",
        "numberRemainingSigners": "Signers who have not finished yet.",
        "detailsURL": "The packet's page in the admin.",
        "webhookURL": "The packet's own webhook URL, if one was given.",
        "completedAt": "When the last signer finished (ISO 8601).",
        "archivedAt": "Always null (packets are not archived here).",
        "createdAt": "ISO 8601.",
        "updatedAt": "ISO 8601.",
        "documentGroup": "The documents and their signers.",
        "sealStatus": "Extension. Once completed, where the seal of the documents stands: "
        "pending (being sealed), sealed (the zip can be downloaded), retrying (an attempt "
        "failed; tried again at sealRetryAt) or failed (no more automatic attempts; the "
        "operators seal it again). Null before completion.",
        "sealLevel": "Extension. The PAdES level the sealed files reach, read back from them: "
        "PAdES-B-B (no timestamp authority) or PAdES-B-LTA. Null until sealed.",
        "sealedAt": "Extension. When the documents were sealed (ISO 8601).",
        "sealError": "Extension. The last failed attempt's error, `{code, message}`; null once "
        "sealed or before any failure.",
        "sealRetryAt": "Extension. When a retrying seal is attempted again (ISO 8601).",
    },
    "SealError": {
        "code": "A stable code: timestamp_unavailable, validation_data_unavailable, "
        "seal_key_unavailable, seal_key_too_weak, seal_certificate_revoked, seal_failed or "
        "unexpected.",
        "message": "What went wrong, for people.",
    },
    "DocumentGroup": {
        "id": "The same as eid.",
        "eid": "The id voidDocumentGroup takes.",
        "status": "The packet's status, as the document group's.",
        "files": "The documents: `[{id, name, filename, title, type, source, pages}]` (id: "
        "files[].id of createEtchPacket).",
        "downloadZipURL": "Where the sealed documents are downloaded as a zip once the packet "
        "is completed (with the API key, or python-anvil's download_documents).",
        "signers": "The signers, in routing order.",
    },
    "Signer": {
        "id": "The same as eid.",
        "eid": "The signer's id: generateEtchSignURL's signerEid.",
        "aliasId": "Your id for the signer (signers[].id).",
        "routingOrder": "When they sign: after every signer of a lower order.",
        "name": "As given.",
        "email": "As given.",
        "status": "created, sent, delivered, viewed, completed, declined, skipped (another "
        "signer declined, or enough members of their signing group signed) or voided; or the "
        "extensions expired (their turn when the packet expired) and forwarded (their turn "
        "went to the signer in forwardedTo).",
        "signActionType": "email or embedded (signerType).",
        "completedAt": "When they finished (ISO 8601).",
        "allowForward": "Extension. Whether they may forward their turn from the signing page.",
        "allowUpdates": "Extension. Whether they may change the values the sender filled in "
        "their fields (createEtchPacket's allowUpdates, or their own).",
        "signatureLevel": "Extension. simple, advanced or qualified (signers[].signatureLevel).",
        "forwardedFrom": "Extension. The signer whose turn this one took over (a forward or "
        "reassignEtchSigner); null for a signer of the packet as created.",
        "forwardedTo": "Extension. The signer their turn went to, once forwarded; else null.",
        "role": "Extension. signer, witness (of the signer witnessFor names), approver "
        "(approves or rejects, signs nothing) or viewer (reads, never waited for).",
        "witnessFor": "Extension. A witness's: the id (aliasId) of the signer they witness; "
        "null otherwise.",
        "group": "Extension. The signing group the signer is a member of (signers[].group), "
        "or null.",
        "attachments": "Extension: the signer's attachment fields (signers[].attachments), "
        "each with the file attached to it once there is one.",
    },
    "SigningGroup": {
        "id": "The group's id, as given (signers[].group.id).",
        "required": "How many members sign for the group's step.",
        "signedBy": "The members who signed for the group so far, first first. Once "
        "`required` did, the others are `skipped`.",
    },
    "SignerAttachment": {
        "fieldId": "The attachment field's id (signers[].attachments[].id).",
        "label": "As given (the id without one).",
        "required": "Whether the signer cannot finish without a file.",
        "acceptedTypes": "pdf, png or jpeg.",
        "maxBytes": "The largest file the field takes.",
        "filename": "The signer's file name, its extension that of what the file is; null "
        "until a file is attached.",
        "contentType": "What the file is, by its content: application/pdf, image/png or "
        "image/jpeg; null until attached.",
        "size": "In bytes; null until attached.",
        "sha256": "The file's SHA-256, as the audit trail lists it; null until attached.",
    },
}
