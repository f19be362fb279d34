"""The signer CA of the tests (issue 51): a key generated inside a SoftHSM2 token of its own
(beside the seal's, tests.esign.sealpki), its CA certificate issued by the seal tests' root CA (whose CRL the local
PKI server publishes), and a helper that reads a PDF's signatures with pyHanko and pdfsig."""

from __future__ import annotations

import functools
import io
import re
import subprocess
import tempfile
from datetime import timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import async_validate_pdf_signature
from pyhanko.sign.validation.ades import ades_lta_validation
from pyhanko.sign.validation.policy_decl import (
    CertificateFetchingRule,
    PdfSignatureValidationSpec,
    RevinfoOnlineFetchingRule,
    RevocationInfoGatheringSpec,
    SignatureValidationSpec,
)
from pyhanko.sign.validation.status import PdfSignatureStatus
from pyhanko_certvalidator import ValidationContext
from pyhanko_certvalidator.context import CertValidationPolicySpec
from pyhanko_certvalidator.policy_decl import (
    CertRevTrustPolicy,
    RevocationCheckingPolicy,
    RevocationCheckingRule,
)
from pyhanko_certvalidator.registry import SimpleTrustManager

from esign.engine.seal import run_coroutine
from esign.engine.seal_credentials import Pkcs11Key
from tests.esign.sealpki import (
    SOFTHSM_MODULE,
    USER_PIN,
    crl_distribution,
    init_token,
    key_usage,
    shared_pki,
    softhsm_key,
)

SIGNER_CA_LABEL = "signer-ca"
# A token of its own: PKCS#11 logs an application in once per token, so the seal's session and
# the signer CA's cannot both log in to one (UserAlreadyLoggedIn), as on a real HSM's partition.
SIGNER_CA_TOKEN = "signer-ca-test"


@functools.cache
def softhsm_signer_ca() -> tuple[Pkcs11Key, bytes]:
    """(the signer CA's key on the tests' token, PEM of its issuer: the seal tests' root)."""
    softhsm_key()  # the token, and SOFTHSM2_CONF, first
    directory = Path(tempfile.mkdtemp(prefix="signer-ca-"))
    tool = ["pkcs11-tool", "--module", SOFTHSM_MODULE, "--token-label", SIGNER_CA_TOKEN]
    tool += ["--login", "--pin", USER_PIN]

    def run(*command: str) -> None:
        subprocess.run(command, check=True, capture_output=True, timeout=60)

    init_token(SIGNER_CA_TOKEN)

    label = ["--label", SIGNER_CA_LABEL, "--id", "03"]
    run(*tool, "--keypairgen", "--key-type", "rsa:2048", *label)
    public_der = directory / "public.der"
    run(
        *tool,
        "--read-object",
        "--type",
        "pubkey",
        "--label",
        SIGNER_CA_LABEL,
        "-o",
        str(public_der),
    )
    public_key = serialization.load_der_public_key(public_der.read_bytes())
    assert isinstance(public_key, rsa.RSAPublicKey)
    pki = shared_pki()
    certificate = (
        x509.CertificateBuilder()
        .subject_name(
            x509.Name(
                [
                    x509.NameAttribute(NameOID.COMMON_NAME, "Seal tests signer CA"),
                    x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Seal tests"),
                ]
            )
        )
        .issuer_name(pki.certificate.subject)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(pki.now - timedelta(days=1))
        .not_valid_after(pki.now + timedelta(days=365))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            key_usage(key_cert_sign=True, crl_sign=True),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(pki.key.public_key()), False
        )
        .add_extension(crl_distribution(pki.crl_url), critical=False)
        .sign(pki.key, hashes.SHA256())
    )
    path = directory / "signer-ca.der"
    path.write_bytes(certificate.public_bytes(serialization.Encoding.DER))
    run(*tool, "--write-object", str(path), "--type", "cert", *label)
    key = Pkcs11Key(
        module=SOFTHSM_MODULE,
        token_label=SIGNER_CA_TOKEN,
        key_label=SIGNER_CA_LABEL,
        pin=USER_PIN,
        chain_pem=pki.ca_pem,
    )
    return key, pki.ca_pem


def signature_statuses(pdf: bytes, roots: list) -> dict[str, PdfSignatureStatus]:
    """Every signature of ``pdf`` (document timestamps aside), by field name, as pyHanko's
    validator sees it with ``roots`` trusted (also from a browser test, whose thread runs an
    event loop: run_coroutine)."""
    reader = PdfFileReader(io.BytesIO(pdf))
    return {
        signature.field_name: run_coroutine(
            async_validate_pdf_signature(
                signature, ValidationContext(trust_roots=roots, allow_fetching=False)
            )
        )
        for signature in reader.embedded_regular_signatures
    }


def lta_validations(pdf: bytes, roots: list) -> dict[str, object]:
    """pyHanko's AdES long-term validation of each signature, fetching nothing: it passes only
    on what the file carries. Revocation data is required of every certificate that names where
    to find it; the signers' one-hour certificates name none (noRevAvail)."""
    rule = RevocationCheckingRule.CHECK_IF_DECLARED
    spec = PdfSignatureValidationSpec(
        SignatureValidationSpec(
            cert_validation_policy=CertValidationPolicySpec(
                trust_manager=SimpleTrustManager.build(trust_roots=roots),
                revinfo_policy=CertRevTrustPolicy(RevocationCheckingPolicy(rule, rule)),
            ),
            revinfo_gathering_policy=RevocationInfoGatheringSpec(
                online_fetching_rule=RevinfoOnlineFetchingRule.LOCAL_ONLY,
                certificate_fetching_rule=CertificateFetchingRule.NEVER_FETCH,
            ),
        )
    )
    reader = PdfFileReader(io.BytesIO(pdf))
    return {
        signature.field_name: run_coroutine(ades_lta_validation(signature, spec)).ades_subindic
        for signature in reader.embedded_regular_signatures
    }


def pdfsig_trusted(pdf: bytes, roots: list, directory: Path) -> list[tuple[str, str]]:
    """pdfsig's verdicts with ``roots`` (asn1crypto certificates) trusted in an NSS database of
    its own (certutil, libnss3-tools): (signature validation, certificate validation) of each
    signature, in the file's order. (Not with -no-ocsp: pdfsig 22.12 then validates no
    certificate at all; none of these names an OCSP responder anyway.)"""
    database = directory / "nssdb"
    database.mkdir(exist_ok=True)
    subprocess.run(
        ["certutil", "-N", "-d", f"sql:{database}", "--empty-password"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    for number, root in enumerate(roots):
        path = directory / f"root-{number}.der"
        path.write_bytes(root.dump())
        subprocess.run(
            ["certutil", "-A", "-d", f"sql:{database}", "-n", f"root-{number}", "-t", "CT,C,C"]
            + ["-i", str(path)],
            check=True,
            capture_output=True,
            timeout=60,
        )
    path = directory / "signed.pdf"
    path.write_bytes(pdf)
    said = subprocess.run(
        ["pdfsig", "-nssdir", f"sql:{database}", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    ).stdout
    return re.findall(r"Signature Validation: (.+)\n\s+- Certificate Validation: (.+)", said)


def pdfsig_verdicts(pdf: bytes, directory: Path) -> list[str]:
    """pdfsig's "Signature Validation" line of each signature, in the file's order."""
    path = directory / "signed.pdf"
    path.write_bytes(pdf)
    said = subprocess.run(
        ["pdfsig", "-nocert", str(path)], capture_output=True, text=True, check=False, timeout=120
    ).stdout
    return re.findall(r"Signature Validation: (.+)", said)
