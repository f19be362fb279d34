"""The REST endpoints of e-signature, for API keys: the sealed documents' download and
verification.

- ``GET /api/document-group/<eid>.zip``: a completed packet's sealed PDFs and its sealed audit
  trail (409 before completion; 503 with ``Retry-After`` while they are being sealed).
- ``POST /api/v1/verify``: the signatures of an uploaded PDF (multipart part ``file``).
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.login_guard import client_address
from core.api_errors import error_response
from core.errors import ValidationFailed
from core.openapi import RATE_LIMIT_HEADERS, error_responses, ref, register_schemas
from core.responses import file_response
from esign.sealing.downloads import SealFailed, SealPending, document_group_archive
from esign.verify.signatures import (
    check_declared_size,
    in_memory_upload_handlers,
    pdf_verify,
    verification_wire,
)
from esign.verify.views import verification_report_pdf

# A signature's and a document timestamp's verdict in the terms of ETSI EN 319 102-1: the same
# two properties in both schemas.
_ETSI_INDICATION = {
    "indication": {
        "type": "string",
        "enum": ["TOTAL-PASSED", "INDETERMINATE", "TOTAL-FAILED"],
        "description": "ETSI EN 319 102-1 main indication, from its problems.",
    },
    "subIndication": {
        "type": ["string", "null"],
        "description": "ETSI EN 319 102-1 sub-indication (HASH_FAILURE, "
        "SIG_CRYPTO_FAILURE, REVOKED, FORMAT_FAILURE, SIG_CONSTRAINTS_FAILURE, "
        "NO_CERTIFICATE_CHAIN_FOUND, CHAIN_CONSTRAINTS_FAILURE, "
        "CERTIFICATE_CHAIN_GENERAL_FAILURE); null with TOTAL-PASSED.",
    },
}

register_schemas(
    {
        "VerifyRequest": {
            "type": "object",
            "required": ["file"],
            "properties": {"file": {"type": "string", "format": "binary"}},
        },
        "VerifiedSignature": {
            "type": "object",
            "required": [
                "fieldName",
                "signer",
                "signedAt",
                "intact",
                "trusted",
                "coversWholeDocument",
                "level",
                "timestamp",
            ],
            "properties": {
                "fieldName": {"type": "string", "description": "The signature field's name."},
                "signer": {
                    "type": "string",
                    "description": "Common name of the signer's certificate.",
                },
                "signedAt": {
                    "type": ["string", "null"],
                    "format": "date-time",
                    "description": "The signing time the signer claims (signing-time attribute).",
                },
                "intact": {
                    "type": "boolean",
                    "description": "The signed bytes are unchanged and the signature is valid.",
                },
                "trusted": {
                    "type": "boolean",
                    "description": "The certificate chains to a root this service trusts.",
                },
                "coversWholeDocument": {
                    "type": "boolean",
                    "description": "Nothing but long-term validation data was added after it.",
                },
                "level": {
                    "type": ["string", "null"],
                    "enum": ["PAdES-B-B", "PAdES-B-T", "PAdES-B-LT", "PAdES-B-LTA", None],
                    "description": "PAdES baseline level; null for a signature that is not PAdES.",
                },
                "timestamp": {
                    "type": ["string", "null"],
                    "format": "date-time",
                    "description": "The time of the signature's RFC 3161 timestamp, if any.",
                },
                "timestampAuthority": {
                    "type": ["string", "null"],
                    "description": "Common name of the signature timestamp's authority.",
                },
                "timestampTrusted": {
                    "type": "boolean",
                    "description": "The signature timestamp is intact and its authority trusted "
                    "(for timestamps): only then is `timestamp` a proven time; otherwise it is "
                    "the time the token claims (problem `timestamp_not_trusted`).",
                },
                "revoked": {
                    "type": "boolean",
                    "description": "Revocation data in the file (its document security store or "
                    "the signature's own) revokes the signer's certificate.",
                },
                "revocationChecked": {
                    "type": "boolean",
                    "description": "Revocation data in the file answers for the signer's "
                    "certificate (or it names no source of any); false: whether it was revoked "
                    "is unknown (nothing is fetched unless VERIFY_ONLINE_REVOCATION is on; "
                    "problem `revocation_not_checked`).",
                },
                "revocationCheckedOnline": {
                    "type": "boolean",
                    "description": "The file carried no revocation data for the signer's "
                    "certificate and the verifier fetched it from the certificate's OCSP "
                    "responder or CRL (only with VERIFY_ONLINE_REVOCATION on; false otherwise).",
                },
                "trustedAt": {
                    "type": ["string", "null"],
                    "format": "date-time",
                    "description": "When trust was decided at a past time, the time a trusted "
                    "timestamp proves: the earliest trusted document timestamp after the "
                    "signature (long-term validation), else the signature's own trusted "
                    "timestamp (for a certificate expired or revoked since); null when decided "
                    "at the current time.",
                },
                "development": {
                    "type": "boolean",
                    "description": "Sealed with this installation's development key: trusted "
                    "here only.",
                },
                **_ETSI_INDICATION,
                "problems": {
                    "type": "array",
                    "items": ref("VerifyProblem"),
                    "description": "What is wrong with this signature.",
                },
            },
        },
        "VerifyProblem": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {
                    "type": "string",
                    "description": "Stable code: not_signed, not_intact, "
                    "signature_value_invalid, signature_contents_changed, signature_unreadable, "
                    "changed_content, changed_annotations, changed_form, changed_metadata, "
                    "appended_bytes, changes_unknown, timestamp_not_intact, "
                    "timestamp_not_trusted, document_timestamp_not_intact, not_trusted, revoked, "
                    "document_timestamp_not_trusted, timestamp_renewal_needed (a notice: the "
                    "last document timestamp's authority certificate has expired; the verdict "
                    "stands), allowed_form_filling, allowed_annotations (notices: changes a "
                    "certification's permissions allow), revocation_not_checked (a notice), "
                    "development_seal, unchecked_signatures.",
                },
                "message": {"type": "string", "description": "The problem, in words."},
                "fieldName": {
                    "type": ["string", "null"],
                    "description": "The signature or document timestamp it is about, if one.",
                },
            },
        },
        "VerifiedDocumentTimestamp": {
            "type": "object",
            "required": [
                "fieldName",
                "authority",
                "at",
                "intact",
                "trusted",
                "coversWholeDocument",
                "covers",
            ],
            "properties": {
                "fieldName": {"type": "string"},
                "authority": {"type": "string", "description": "Common name of the TSA."},
                "at": {"type": ["string", "null"], "format": "date-time"},
                "intact": {
                    "type": "boolean",
                    "description": "The bytes it covers (the file up to it: signatures, "
                    "validation data) are unchanged and its signature is valid.",
                },
                "trusted": {
                    "type": "boolean",
                    "description": "Its authority's certificate chains to a trusted root.",
                },
                "coversWholeDocument": {
                    "type": "boolean",
                    "description": "Nothing but long-term validation data was added after it.",
                },
                "covers": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "The field names of the signatures it covers.",
                },
                **_ETSI_INDICATION,
                "problems": {
                    "type": "array",
                    "items": ref("VerifyProblem"),
                    "description": "What is wrong with this document timestamp.",
                },
            },
        },
        "VerifiedSigner": {
            "type": "object",
            "required": ["name", "signedAt", "source", "verified"],
            "properties": {
                "name": {"type": "string"},
                "signedAt": {"type": ["string", "null"], "format": "date-time"},
                "source": {
                    "type": "string",
                    "enum": ["audit_trail", "signature"],
                    "description": "`audit_trail`: a signer of the packet this file belongs to "
                    "(by its SHA-256); `signature`: the name in a signature's certificate.",
                },
                "verified": {
                    "type": "boolean",
                    "description": "From this service's records, or from a trusted "
                    "signature's certificate; false: a name an untrusted certificate claims.",
                },
                "timeProven": {
                    "type": "boolean",
                    "description": "`signedAt` is proven: from this service's records or a "
                    "trusted timestamp; false: the time the signature claims.",
                },
            },
        },
        "Verification": {
            "type": "object",
            "required": [
                "signatures",
                "sealedByUs",
                "verdict",
                "problems",
                "documentTimestamps",
                "signers",
                "knownAs",
                "sha256",
            ],
            "properties": {
                "signatures": {"type": "array", "items": ref("VerifiedSignature")},
                "sealedByUs": {
                    "type": "boolean",
                    "description": "The file is, byte for byte, a document or audit trail "
                    "this service sealed.",
                },
                "verdict": {
                    "type": "string",
                    "enum": ["valid", "valid_development", "untrusted", "changed", "not_signed"],
                    "description": "The one answer: `valid` (every signature and document "
                    "timestamp intact and trusted, nothing but validation data added after "
                    "them); `valid_development` (the same, sealed with this installation's "
                    "development key, trusted nowhere else); `untrusted` (intact and unchanged, "
                    "but a signer or timestamp authority is not trusted, or was revoked); "
                    "`changed` (changed after signing: a signature or document timestamp not "
                    "intact, or anything else added after a signature); `not_signed`.",
                },
                "problems": {
                    "type": "array",
                    "items": ref("VerifyProblem"),
                    "description": "Everything the verdict rests on that is not right.",
                },
                "documentTimestamps": {
                    "type": "array",
                    "items": ref("VerifiedDocumentTimestamp"),
                },
                "signers": {
                    "type": "array",
                    "items": ref("VerifiedSigner"),
                    "description": "Who signed: the packet's signers when the file is one of "
                    "its documents, otherwise the intact signatures' certificate names.",
                },
                "knownAs": {
                    "type": ["string", "null"],
                    "enum": [
                        "sealed_document",
                        "sealed_audit_trail",
                        "document_before_seal",
                        "document_before_signing",
                        None,
                    ],
                    "description": "What this service knows the file as, by its SHA-256: a "
                    "sealed document or audit trail, a document as it was before its seal "
                    "(the seal removed), or as it was prepared for signing.",
                },
                "sha256": {"type": "string", "description": "The file's SHA-256, in hex."},
            },
        },
    }
)

_SEAL_PENDING = OpenApiResponse(
    response=ref("Error"),
    description="Every signer signed and the documents are being sealed (`SealPendingError`, "
    "with `Retry-After`), or sealing failed and the operators retry it (`SealFailedError`).",
    examples=[
        OpenApiExample(
            "Being sealed",
            value=SealPending(
                5, "The documents are being sealed; try again in 5 seconds."
            ).as_wire(),
            response_only=True,
        )
    ],
)
_NOT_COMPLETED = OpenApiResponse(
    response=ref("Error"),
    description="The packet is not completed: some signer has not signed.",
    examples=[
        OpenApiExample(
            "Not completed",
            value={
                "name": "ConflictError",
                "message": "The packet is partial: its documents can be downloaded once every "
                "signer has signed.",
            },
            response_only=True,
        )
    ],
)


class DocumentGroupZipApi(APIView):
    @extend_schema(
        operation_id="downloadDocumentGroup",
        summary="Download a completed packet's sealed documents",
        description="A zip of the packet's PDFs, each sealed with the service's certificate "
        "(PAdES), and `audit-trail.pdf`, the sealed certificate of completion. Sealing runs in "
        "the background once the last signer signs: until it is done the answer is 503 with "
        "`Retry-After`.",
        tags=["esign"],
        responses={
            (200, "application/zip"): OpenApiResponse(
                response=OpenApiTypes.BINARY, description="The zip."
            ),
            409: _NOT_COMPLETED,
            503: _SEAL_PENDING,
            **error_responses([401, 404, 429, 500]),
        },
        parameters=RATE_LIMIT_HEADERS,
    )
    def get(self, request: Request, group_eid: str) -> HttpResponse | Response:
        try:
            archive = document_group_archive(
                organization=request.user.organization, group_eid=group_eid
            )
        except SealPending as pending:
            response = error_response(pending, Response)  # with its Retry-After
            # An expected, passing state that clients poll: not one ERROR line per poll in the
            # log (Django's request logger reports every 5xx unless told it was dealt with).
            response._has_been_logged = True  # type: ignore[attr-defined]
            return response
        except SealFailed as failed:
            return error_response(failed, Response)
        return file_response(
            archive.data, filename=f"{archive.filename}.zip", content_type="application/zip"
        )


REPORT_FORMAT = OpenApiParameter(
    "format",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    required=False,
    enum=["json", "pdf"],
    description="`pdf`: the validation report as a printable PDF instead of JSON (the default).",
)


def wants_pdf_report(request: Request) -> bool:
    """``?format=pdf``, or an Accept naming application/pdf but not JSON (a client that
    accepts both, or anything, keeps the JSON of before)."""
    chosen = request.query_params.get("format", "").lower()
    if chosen:
        return chosen == "pdf"
    accept = request.META.get("HTTP_ACCEPT", "").lower()
    return "application/pdf" in accept and "json" not in accept


class DocumentVerifyApi(APIView):
    @extend_schema(
        operation_id="verifyPdf",
        summary="Verify the signatures of a PDF",
        description="Checks every signature and document timestamp of the PDF in the "
        "multipart part `file`: intact, trusted (against the service's own roots and its "
        "configured ones, with the revocation data the file carries, at the time its "
        "timestamps prove; nothing is fetched unless the installation turned on "
        "VERIFY_ONLINE_REVOCATION: then a signer's missing OCSP response or CRL is fetched), "
        "whether anything but validation data was "
        "added after it, its PAdES level and timestamp; whether the file is exactly one this "
        "service sealed; and one `verdict` with the `problems` it rests on and the `signers`. "
        "The file is not kept. A file "
        "over a verification limit (the size of a signature's contents, revisions, objects, "
        "signatures; the verifier's memory or time) is a 422 ValidationError on `file`. "
        "The answer is JSON; with `?format=pdf` (or `Accept: application/pdf` and not JSON) "
        "it is the same validation report as a printable PDF (signer, EN 319 102-1 "
        "indication and sub-indication, level and times of each signature and document "
        "timestamp, the file's SHA-256 and the verification time), as an attachment "
        "`validation-report.pdf`.",
        tags=["esign"],
        request={"multipart/form-data": ref("VerifyRequest")},
        responses={
            (200, "application/json"): OpenApiResponse(
                response=ref("Verification"),
                description="The verification (with `format=pdf`: the report as "
                "`application/pdf`).",
            ),
            (200, "application/pdf"): OpenApiResponse(
                response=OpenApiTypes.BINARY,
                description="With `format=pdf`: the validation report.",
            ),
            **error_responses([400, 401, 413, 415, 429, 500, 503]),
            422: OpenApiResponse(
                response=ref("ValidationError"),
                description="The file is over a verification limit.",
            ),
        },
        parameters=[REPORT_FORMAT, *RATE_LIMIT_HEADERS],
    )
    def post(self, request: Request) -> Response | HttpResponse:
        check_declared_size(request._request)
        request._request.upload_handlers = in_memory_upload_handlers(request._request)
        upload = request.FILES.get("file")
        if upload is None:
            raise ValidationFailed.single("file", "Required")
        verification = pdf_verify(data=upload.read(), client=client_address(request._request))
        if wants_pdf_report(request):
            return file_response(
                verification_report_pdf(verification, (upload.name or "upload.pdf")[:200]),
                filename="validation-report.pdf",
                content_type="application/pdf",
            )
        return Response(verification_wire(verification))
