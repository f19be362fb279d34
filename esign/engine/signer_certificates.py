"""Short-lived certificates for signers: what an ``advanced`` signer signs with.

At the packet's seal, each advanced signer gets a fresh key pair (EC P-256, made in memory and
dropped after their signatures) and a certificate for it, issued by the service's signer CA,
whose key is the caller's ``SealCredentials`` (in an HSM, or a software key as configured,
esign.sealing.signer_ca). The certificate names the signer (their name, and the email or phone
number that was verified for them) and is valid for ``CERTIFICATE_LIFETIME`` around the moment
of signing: it exists for one signing, so it carries no CRL or OCSP address (ETSI EN 319 411-1's
short-term certificates; RFC 9608's ``noRevAvail`` says so), and nothing can sign with it later.

The CA may sign only through pyHanko's ``Signer.async_sign_raw`` (a PKCS#11 key never leaves its
token), so the TBSCertificate is built with asn1crypto and signed as raw bytes.

Pure Python (no Django); the clock is the caller's.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from asn1crypto import core as asn1_core
from asn1crypto import crl as asn1_crl
from asn1crypto import keys as asn1_keys
from asn1crypto import x509 as asn1_x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from pyhanko.sign import signers
from pyhanko_certvalidator.registry import SimpleCertificateStore

from esign.engine.seal import run_coroutine
from esign.engine.seal_credentials import SealCredentials

# Valid from a few minutes before signing (clocks differ) to an hour after.
CERTIFICATE_BACKDATE = timedelta(minutes=5)
CERTIFICATE_LIFETIME = timedelta(hours=1)
# RFC 9608: "no revocation information will be available" for this certificate.
NO_REV_AVAIL = "2.5.29.56"
# RFC 9336: id-kp-documentSigning.
DOCUMENT_SIGNING = "1.3.6.1.5.5.7.3.36"


@dataclass(frozen=True)
class SignerIdentity:
    """Who a certificate is for: their name and the verified email or phone (E.164)."""

    name: str
    email: str = ""
    phone: str = ""


@dataclass(frozen=True)
class IssuedCertificate:
    """A signer's one-time key and certificate, as ``SealCredentials`` for seal_document."""

    credentials: SealCredentials = field(repr=False)

    @property
    def certificate(self) -> asn1_x509.Certificate:
        return self.credentials.certificate


def _name(identity: SignerIdentity) -> asn1_x509.Name:
    attributes: dict[str, str] = {"common_name": identity.name[:64] or "Signer"}
    if identity.email:
        attributes["email_address"] = identity.email
    if identity.phone:
        attributes["telephone_number"] = identity.phone
    return asn1_x509.Name.build(attributes, use_printable=False)


def _extensions(
    public_key: asn1_keys.PublicKeyInfo, ca: asn1_x509.Certificate, identity: SignerIdentity
) -> list[asn1_x509.Extension]:
    def extension(name: str, value: object, critical: bool = False) -> asn1_x509.Extension:
        return asn1_x509.Extension({"extn_id": name, "critical": critical, "extn_value": value})

    extensions = [
        extension("basic_constraints", {"ca": False}, critical=True),
        extension("key_usage", {"digital_signature", "non_repudiation"}, critical=True),
        # emailProtection too: NSS (poppler's pdfsig, Firefox's PDF viewer) checks a signer's
        # certificate for S/MIME use, and refuses one whose extended key usage lacks it.
        extension("extended_key_usage", [DOCUMENT_SIGNING, "email_protection"]),
        extension("key_identifier", public_key.sha1),
        extension(
            "authority_key_identifier",
            {"key_identifier": ca.key_identifier or ca.public_key.sha1},
        ),
    ]
    alternative: list[asn1_x509.GeneralName] = []
    if identity.email:
        alternative.append(asn1_x509.GeneralName("rfc822_name", identity.email))
    if identity.phone:
        alternative.append(
            asn1_x509.GeneralName("uniform_resource_identifier", f"tel:{identity.phone}")
        )
    if alternative:
        extensions.append(extension("subject_alt_name", alternative))
    # asn1crypto does not name noRevAvail: its value is NULL.
    extensions.append(
        asn1_x509.Extension(
            {
                "extn_id": asn1_x509.ExtensionId(NO_REV_AVAIL),
                "critical": False,
                "extn_value": asn1_core.ParsableOctetString(asn1_core.Null().dump()),
            }
        )
    )
    return extensions


def issue_signer_certificate(
    identity: SignerIdentity, *, ca: SealCredentials, at: datetime
) -> IssuedCertificate:
    """A new key for ``identity`` and its certificate, issued by ``ca`` (the signer CA), valid
    around ``at`` (aware). Raises the CA signer's errors (a PKCS#11 error for an HSM key)."""
    if at.tzinfo is None:
        raise ValueError("at must be aware")
    at = at.replace(microsecond=0)  # what a certificate's validity can say
    private_key = ec.generate_private_key(ec.SECP256R1())
    public_key = asn1_keys.PublicKeyInfo.load(
        private_key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    mechanism = ca.signer.get_signature_mechanism_for_digest("sha256")
    tbs = asn1_x509.TbsCertificate(
        {
            "version": "v3",
            # Positive, at most 20 octets (RFC 5280), and unguessable.
            "serial_number": int.from_bytes(secrets.token_bytes(16), "big") | 1,
            "signature": mechanism,
            "issuer": ca.certificate.subject,
            "validity": {
                "not_before": asn1_x509.Time({"utc_time": at - CERTIFICATE_BACKDATE}),
                "not_after": asn1_x509.Time({"utc_time": at + CERTIFICATE_LIFETIME}),
            },
            "subject": _name(identity),
            "subject_public_key_info": public_key,
            "extensions": _extensions(public_key, ca.certificate, identity),
        }
    )
    signature = run_coroutine(ca.signer.async_sign_raw(tbs.dump(), "sha256"))
    certificate = asn1_x509.Certificate(
        {
            "tbs_certificate": tbs,
            "signature_algorithm": mechanism,
            "signature_value": signature,
        }
    )
    chain = (ca.certificate, *ca.chain)
    key_info = asn1_keys.PrivateKeyInfo.load(
        private_key.private_bytes(
            serialization.Encoding.DER,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    signer = signers.SimpleSigner(
        signing_cert=certificate,
        signing_key=key_info,
        cert_registry=SimpleCertificateStore.from_certs(chain),
    )
    return IssuedCertificate(SealCredentials(signer, certificate, chain))


def issue_crl(ca: SealCredentials, *, at: datetime) -> bytes:
    """DER of a CRL of ``ca`` revoking nothing, issued at ``at`` and due again when the
    certificates it issues around ``at`` have expired. It goes into the document security store
    beside the signers' signatures: the one-hour certificates name no CRL (nothing can ask
    for their status later), but the ETSI long-term validation a validator runs once they have
    expired (pyHanko's time slide, EN 319 102-1) wants revocation data for every certificate of
    the path, and this is the CA's statement that none of them was revoked while they lived."""
    at = at.replace(microsecond=0)
    mechanism = ca.signer.get_signature_mechanism_for_digest("sha256")
    tbs = asn1_crl.TbsCertList(
        {
            "version": "v2",
            "signature": mechanism,
            "issuer": ca.certificate.subject,
            "this_update": asn1_x509.Time({"utc_time": at}),
            "next_update": asn1_x509.Time({"utc_time": at + CERTIFICATE_LIFETIME}),
            "crl_extensions": [
                {"extn_id": "crl_number", "critical": False, "extn_value": int(at.timestamp())},
                {
                    "extn_id": "authority_key_identifier",
                    "critical": False,
                    "extn_value": {
                        "key_identifier": ca.certificate.key_identifier
                        or ca.certificate.public_key.sha1
                    },
                },
            ],
        }
    )
    signature = run_coroutine(ca.signer.async_sign_raw(tbs.dump(), "sha256"))
    crl = asn1_crl.CertificateList(
        {"tbs_cert_list": tbs, "signature_algorithm": mechanism, "signature": signature}
    )
    return bytes(crl.dump())


def certificate_summary(certificate: asn1_x509.Certificate) -> dict[str, str]:
    """What the audit trail, /verify and the webhooks name of a signer's certificate."""
    return {
        "subject": certificate.subject.human_friendly,
        "issuer": certificate.issuer.human_friendly,
        "serial": format(certificate.serial_number, "x"),
        "notBefore": certificate.not_valid_before.isoformat(),
        "notAfter": certificate.not_valid_after.isoformat(),
    }
