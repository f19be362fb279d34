"""Which configured roots vouch for what: document signers, timestamp authorities, or both.

One list of roots (SEAL_TRUST_ROOTS_FILE alone) used to vouch for both roles: a timestamp
authority's root trusted for timestamps also made any certificate it issued a trusted document
signer. Roles are kept apart by default: a root is a timestamp authority's when its
certificates say so, by the id-kp-timeStamping extended key usage (RFC 3161 § 2.3), on the root
itself or on a certificate in the configured files issued under it (the TSA's own certificate,
an intermediate restricted to time stamping). Such a root vouches for timestamps only unless the
operator lists it for both roles (SEAL_TSA_TRUST_ROOTS_FILE, and the root in both files).

Pure Python (no Django).
"""

from __future__ import annotations

from collections.abc import Iterable

from asn1crypto import x509 as asn1_x509

from esign.engine.revocation import signed_by

TIME_STAMPING = "time_stamping"


def stamps_time(certificate: asn1_x509.Certificate) -> bool:
    """Whether ``certificate`` names id-kp-timeStamping among its extended key usages."""
    usage = certificate.extended_key_usage_value
    return usage is not None and TIME_STAMPING in usage.native


def timestamping_roots(
    certificates: Iterable[asn1_x509.Certificate],
) -> list[asn1_x509.Certificate]:
    """The certificates among ``certificates`` (a configured file: roots, and any others it
    holds) that are a timestamp authority's anchors: those naming id-kp-timeStamping themselves,
    and those under which another of them that does was issued (signature by signature)."""
    pool = {c.sha256: c for c in certificates}
    by_subject: dict[bytes, list[asn1_x509.Certificate]] = {}
    for certificate in pool.values():
        by_subject.setdefault(certificate.subject.dump(), []).append(certificate)
    found: dict[bytes, asn1_x509.Certificate] = {}
    for certificate in pool.values():
        if not stamps_time(certificate):
            continue
        # the certificate and everything above it, as far as the pool's signatures go
        frontier, seen = [certificate], set()
        while frontier:
            current = frontier.pop()
            if current.sha256 in seen:
                continue
            seen.add(current.sha256)
            found[current.sha256] = current
            if current.issuer == current.subject:
                continue
            frontier += [
                issuer
                for issuer in by_subject.get(current.issuer.dump(), [])
                if signed_by(current, issuer)
            ]
    return list(found.values())
