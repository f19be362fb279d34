"""Facts about the certificates of a signed file that the checks read: a name to show, whether
it is a time-stamping authority's, whether a status says it had expired, whether the online
check fetched revocation data about it, and the time a timestamp token states.
Pure Python (no Django)."""

from __future__ import annotations

from datetime import datetime

from asn1crypto import x509 as asn1_x509
from pyhanko.sign.ades.report import AdESIndeterminate
from pyhanko.sign.validation import (
    EmbeddedPdfSignature,
)
from pyhanko_certvalidator.fetchers import Fetchers


def expired_without_proof(status: object) -> bool:
    """Whether pyHanko found the signer's chain but the certificate out of its validity at the
    time trust is decided, with nothing proving an earlier time (EN 319 102-1:
    OUT_OF_BOUNDS_NO_POE)."""
    return getattr(status, "trust_problem_indic", None) in _EXPIRED_INDICATIONS


_EXPIRED_INDICATIONS = frozenset(
    {
        AdESIndeterminate.OUT_OF_BOUNDS_NO_POE,
        AdESIndeterminate.OUT_OF_BOUNDS_NOT_REVOKED,
        AdESIndeterminate.EXPIRED,
    }
)


def name_of(certificate: asn1_x509.Certificate) -> str:
    names = certificate.subject.native
    common = names.get("common_name") if isinstance(names, dict) else None
    if isinstance(common, list):
        common = common[0] if common else None
    return str(common or certificate.subject.human_friendly)


def token_time(embedded: EmbeddedPdfSignature) -> datetime:
    """The time a timestamp token states (its TSTInfo's genTime), as its authority claims it."""
    tst_info = embedded.signed_data["encap_content_info"]["content"].parsed
    return tst_info["gen_time"].native


def is_timestamping_certificate(certificate: asn1_x509.Certificate) -> bool:
    """RFC 3161 § 2.3: a TSA's certificate has id-kp-timeStamping as its only extended key
    usage, marked critical."""
    extension = next(
        (
            e
            for e in certificate["tbs_certificate"]["extensions"]
            if e["extn_id"].native == "extended_key_usage"
        ),
        None,
    )
    return bool(
        extension is not None
        and extension["critical"].native
        and extension["extn_value"].native == ["time_stamping"]
    )


def fetched_about(fetchers: Fetchers, certificate: asn1_x509.Certificate) -> bool:
    """Whether the online check got an OCSP response or a CRL about ``certificate``."""
    if list(fetchers.ocsp_fetcher.fetched_responses_for_cert(certificate)):
        return True
    try:
        return bool(list(fetchers.crl_fetcher.fetched_crls_for_cert(certificate)))
    except KeyError:  # pyHanko's CRL fetcher: no CRL was fetched for this certificate
        return False
