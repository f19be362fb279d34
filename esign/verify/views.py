"""The public verification page, /verify: upload a PDF, read what its signatures say.

No account is needed and nothing is kept (esign.verify.signatures); a file over a limit (its size,
its structure, the verify worker's memory or time) is refused with the API's statuses (413, 422),
with every verify worker busy the page answers 503, and with as many verifications of the
client's address under way as it may have (VERIFY_MAX_PER_ADDRESS) 429. Each client address
may verify VERIFY_PAGE_PER_MINUTE files a minute: a check costs a PDF parse and every signature's
cryptography, and nobody's key pays for it. The form is protected against
cross-site posting like any other: the CSRF check runs after the upload handlers are replaced,
because reading the token parses the body, and Django would otherwise buffer a large file to a
temporary file on disk first.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods

from accounts.login_guard import client_address
from accounts.ratelimit import rate_limit_hit
from core.errors import RateLimited, RequestTooLarge, ServiceBusy, ValidationFailed
from esign.engine.report_pdf import ReportSection, ReportText, report_pdf
from esign.engine.verify_report import CHANGED, NOT_SIGNED, UNTRUSTED, VALID
from esign.sealing.marks import MARK_PARAMETER, marked_document
from esign.verify.signatures import (
    DEVELOPMENT_SEAL,
    SEALED_AUDIT_TRAIL,
    SEALED_DOCUMENT,
    VALID_DEVELOPMENT,
    Verification,
    check_declared_size,
    in_memory_upload_handlers,
    limit_text,
    pdf_verify,
    too_large_message,
    verification_report_file,
)

TEMPLATE = "esign/verify.html"


def _time(value: datetime | None) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if value else ""


def _page(request: HttpRequest, status: int = 200, **context: Any) -> HttpResponse:
    context.setdefault("limit", limit_text())
    response = render(request, TEMPLATE, context, status=status)
    response["Cache-Control"] = "no-store"
    # Not no-referrer: with it Chromium posts the form with "Origin: null", which CSRF refuses.
    response["Referrer-Policy"] = "same-origin"
    return response


# The page's headline for each verdict: its title word, its tone (colour and mark only repeat
# the words) and what it means for someone who is not a PDF expert.
VERDICTS: dict[str, tuple[str, str, str]] = {
    VALID: (
        "Valid",
        "good",
        "Every signature is intact and trusted, and nothing was changed after it.",
    ),
    VALID_DEVELOPMENT: (
        "Valid, with a development seal",
        "warn",
        "Sealed by this installation with its development key: intact, and nothing was changed "
        "after it, but that key is trusted here only, not by any other service or PDF reader. "
        "It is not a production seal.",
    ),
    UNTRUSTED: (
        "Intact, but not from a trusted signer",
        "warn",
        "Nothing was changed after it was signed, but the signer's certificate is not one this "
        "service can trust (from an unknown authority, expired or revoked): the name in it "
        "does not prove who signed.",
    ),
    CHANGED: (
        "Changed after signing",
        "bad",
        "The file is not as it was signed: do not rely on it.",
    ),
    NOT_SIGNED: ("Not signed", "bad", "This PDF has no signature: nothing proves who made it."),
}
KNOWN_AS = {
    SEALED_DOCUMENT: "a document",
    SEALED_AUDIT_TRAIL: "an audit trail",
}


def _result(verification: Verification, filename: str) -> dict[str, Any]:
    report = verification.report
    verdict = verification.verdict
    title, tone, meaning = VERDICTS[verdict]
    if verdict == VALID and verification.sealed_by_us:
        title = "Valid: sealed by this service"
    problems = _result_problems(verification)
    return {
        "filename": filename,
        "sha256": verification.sha256,
        "report_file": verification_report_file(verification),
        "report_pdf": base64.b64encode(verification_report_pdf(verification, filename)).decode(),
        "valid": verification.valid,
        "verdict": verdict,
        "verdict_title": title,
        "verdict_tone": tone,
        "verdict_meaning": meaning,
        "problems": problems,
        "sealed_by_us": verification.sealed_by_us,
        "sealed_kind": KNOWN_AS.get(verification.known_as, ""),
        "known_as": verification.known_as,
        "unchecked": report.unchecked,
        "signers": [
            {
                "name": s.name,
                "signed_at": _time(s.signed_at),
                "source": s.source,
                "verified": s.verified,
                "time_proven": s.time_proven,
                "level": s.level,
                "certificates": s.certificates,
            }
            for s in verification.signers
        ],
        "signatures": [
            {
                "field_name": s.field_name,
                "signer": s.signer or "(unknown)",
                "signed_at": _time(s.signed_at),
                "intact": s.intact,
                "trusted": s.trusted,
                "revoked": s.revoked,
                "revocation_checked": s.revocation_checked,
                "revocation_online": s.revocation_checked_online,
                "development": s.field_name in verification.development,
                "trusted_at": _time(s.trusted_at),
                "whole": s.covers_whole_document,
                "level": s.level,
                "timestamp": _time(s.timestamp),
                "timestamp_authority": s.timestamp_authority,
                "timestamp_trusted": s.timestamp_trusted,
                "problems": s.problems,
            }
            for s in report.signatures
        ],
        "document_timestamps": [
            {
                "authority": t.authority or "(unknown)",
                "at": _time(t.at),
                "intact": t.intact,
                "trusted": t.trusted,
                "whole": t.covers_whole_document,
                "covers": ", ".join(t.covers),
                "problems": t.problems,
            }
            for t in report.document_timestamps
        ],
    }


def _yes_no(value: bool, yes: str, no: str) -> str:
    return yes if value else no


def _trust_words(s: Any, development: bool) -> str:
    """The page's "Trusted" words for signature ``s``."""
    if development:
        return "In this installation only: a development certificate, trusted nowhere else"
    if s.revoked:
        return "No: the certificate was revoked"
    if not s.trusted:
        return "No: not from an authority this service trusts"
    words = "Yes: the certificate chains to a trusted root"
    if s.trusted_at:
        words += f" (checked at {_time(s.trusted_at)}, the time a trusted timestamp proves)"
    if s.revocation_checked_online:
        words += ". Revocation checked online, with the certificate's authority"
    if not s.revocation_checked:
        words += (
            ". Revocation not checked: the file carries no revocation data for this certificate"
        )
    return words


def _signature_section(s: Any, development: bool) -> ReportSection:
    indication, sub_indication = s.indication
    if s.timestamp:
        stamped = f"{_time(s.timestamp)} by {s.timestamp_authority or '(unknown)'}" + _yes_no(
            s.timestamp_trusted,
            " (proven: a trusted timestamp)",
            " (claimed: the timestamp is not trusted)",
        )
    else:
        stamped = "None"
    if s.signed_at:
        claimed = f"{_time(s.signed_at)} (the time the signature claims)"
    else:
        claimed = "(not stated)"
    if s.level:
        level = s.level
    else:
        level = _yes_no(s.intact, "Not a PAdES signature", "None (the signature is not intact)")
    revocation = _yes_no(s.revocation_checked, "Checked", "Not checked")
    if s.revocation_checked_online:
        revocation += " online, with the certificate's authority"
    return ReportSection(
        heading=f"Signature: {s.signer or '(unknown)'}",
        rows=(
            ("Signer", s.signer or "(unknown)"),
            ("Indication", indication),
            ("Sub-indication", sub_indication or "None"),
            ("Intact", _yes_no(s.intact, "Yes: the signed content is unchanged", "No")),
            ("Trusted", _trust_words(s, development)),
            ("Revocation", revocation),
            (
                "Whole document",
                _yes_no(
                    s.covers_whole_document,
                    "Yes: nothing was changed after it",
                    "No: the file was changed after it",
                ),
            ),
            ("PAdES level", level),
            ("Signed at", claimed),
            ("Timestamp", stamped),
            ("Field", s.field_name),
        ),
        findings=tuple(f.message for f in s.findings),
    )


def _timestamp_section(t: Any) -> ReportSection:
    indication, sub_indication = t.indication
    covers = ", ".join(t.covers)
    return ReportSection(
        heading=f"Document timestamp: {_time(t.at) or '(no time)'}",
        rows=(
            ("Authority", t.authority or "(unknown)"),
            ("Indication", indication),
            ("Sub-indication", sub_indication or "None"),
            ("Time", _time(t.at) or "(no time)"),
            (
                "Intact",
                _yes_no(
                    t.intact,
                    "Yes: nothing it covers was changed",
                    "No: something it covers was changed",
                ),
            ),
            ("Trusted", _yes_no(t.trusted, "Yes: the authority chains to a trusted root", "No")),
            (
                "Covers",
                f"{covers}, and everything in the file before it"
                if covers
                else "Everything in the file before it",
            ),
        ),
        findings=tuple(f.message for f in t.findings),
    )


def verification_report_pdf(verification: Verification, filename: str) -> bytes:
    """The validation report as a printable PDF: what the page shows, with each signature's and
    document timestamp's EN 319 102-1 indication (the JSON report's)."""
    title, _tone, meaning = VERDICTS[verification.verdict]
    report = verification.report
    summary = (
        ("File", filename),
        ("SHA-256", verification.sha256),
        ("Verified at", _time(verification.verified_at) or "(unknown)"),
        (
            "What was checked",
            "Each signature and document timestamp: intact, trusted (against the service's "
            "trust roots, with the revocation data the file carries, at the time its "
            "timestamps prove), and whether the file was changed after it; and whether the "
            "file is exactly one this service sealed.",
        ),
        (
            "Sealed by this service",
            _yes_no(
                verification.sealed_by_us,
                f"Yes: this exact file is {KNOWN_AS.get(verification.known_as, 'a file')} "
                "this service sealed",
                "No",
            ),
        ),
    )
    sections = tuple(
        _signature_section(s, s.field_name in verification.development) for s in report.signatures
    ) + tuple(_timestamp_section(t) for t in report.document_timestamps)
    result = _result_problems(verification)
    return report_pdf(
        ReportText(
            title="Validation report",
            summary=summary,
            verdict=title,
            verdict_meaning=meaning,
            problems=tuple(result),
            sections=sections,
            closing=(
                f"{report.unchecked} more signature(s) were not checked. "
                if report.unchecked
                else ""
            )
            + "Indications as in ETSI EN 319 102-1 (TOTAL-PASSED, INDETERMINATE, TOTAL-FAILED).",
            monospaced_labels=frozenset({"SHA-256", "Field"}),
        )
    )


def _result_problems(verification: Verification) -> list[str]:
    """Everything wrong, once each, without what the headline already says."""
    seen: set[str] = set()
    problems = []
    for code, message, _name in verification.problems:
        if message not in seen and code not in (DEVELOPMENT_SEAL, NOT_SIGNED):
            seen.add(message)
            problems.append(message)
    return problems


def _mark(request: HttpRequest) -> dict[str, Any]:
    """Opened from a verification mark's link (``?d=``, esign.sealing.marks): the sealed
    document it names, for the page to say so above the upload that checks a copy."""
    digits = request.GET.get(MARK_PARAMETER)
    if digits is None:
        return {}
    document = marked_document(digits)
    if document is None:
        return {"mark_checked": True}
    return {
        "mark_checked": True,
        "mark": {
            "title": document.title,
            "pages": document.pages,
            "sealed_at": _time(document.sealed_at),
            "sealed_sha256": document.sealed_sha256,
        },
    }


@csrf_exempt  # checked by _verify, once the upload handlers are in place
@require_http_methods(["GET", "HEAD", "POST"])
def verify_page(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        try:
            check_declared_size(request)
        except RequestTooLarge:
            return _page(request, 413, error=too_large_message())
        request.upload_handlers = in_memory_upload_handlers(request)
    return _verify(request)


def _over_the_rate(request: HttpRequest) -> HttpResponse | None:
    """429 when this address has used its verifications of the minute. Counted once the CSRF
    check has passed: a forged cross-site post must not use up someone's allowance."""
    if not settings.RATE_LIMIT_ENABLED:
        return None
    decision = rate_limit_hit(
        bucket=f"verify-page:{client_address(request)}",
        limit=settings.VERIFY_PAGE_PER_MINUTE,
        interval_ms=60_000,
    )
    if decision.allowed:
        return None
    wait = decision.retry_after_seconds
    response = _page(
        request,
        429,
        error=f"Too many files verified from your address in the last minute. Try again in"
        f" {wait} second{'s' if wait != 1 else ''}.",
    )
    response["Retry-After"] = str(wait)
    return response


@csrf_protect
def _verify(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _page(request, **_mark(request))
    refused = _over_the_rate(request)
    if refused is not None:
        return refused
    upload = request.FILES.get("file")
    if upload is None:
        return _page(request, 400, error="Choose a PDF file to verify.")
    filename = (upload.name or "upload.pdf")[:200]
    try:
        verification = pdf_verify(data=upload.read(), client=client_address(request))
    except RequestTooLarge as error:
        return _page(request, 413, error=error.message, filename=filename)
    except ValidationFailed as error:  # 400 unreadable, 422 over a limit
        message = error.fields[0].message if error.fields else "The file could not be read."
        return _page(request, error.status, error=message, filename=filename)
    except (ServiceBusy, RateLimited) as error:  # 503 every worker busy, 429 this address
        response = _page(request, error.status, error=error.message, filename=filename)
        response["Retry-After"] = str(error.retry_after_seconds)
        return response
    return _page(request, result=_result(verification, filename))
