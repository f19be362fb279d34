"""Roles kept apart with one roots file (issue 47, item 7): a timestamp authority's root in
SEAL_TRUST_ROOTS_FILE, recognised by its certificates' id-kp-timeStamping, vouches for
timestamps only; a system check names every root that holds both roles."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from django.test import Client

from esign.checks import trust_roles_check
from esign.sealing.config import signer_trust_roots, tsa_trust_roots
from tests.esign.ltvpki import ShortLivedPki
from tests.esign.sealpki import asn1
from tests.esign.test_verify_trust_roles import ours_and_the_tsa_roots


@pytest.fixture(scope="module")
def pki() -> ShortLivedPki:
    return ShortLivedPki(revocation_seconds=86400, separate_tsa=True)


def pem(*certificates: Any) -> bytes:
    return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certificates)


@pytest.fixture
def one_roots_file(pki: ShortLivedPki, settings: Any, tmp_path: Path) -> Path:
    """SEAL_TRUST_ROOTS_FILE alone, holding the signers' root, the TSA's root and the TSA's
    certificate (as an operator pastes a TSA's chain)."""
    roots = tmp_path / "roots.pem"
    roots.write_bytes(pem(pki.certificate, pki.tsa_root, pki.tsa_certificate))
    settings.SEAL_TRUST_ROOTS_FILE = str(roots)
    settings.SEAL_TSA_TRUST_ROOTS_FILE = ""
    return roots


def verdict(api_client: Client, pdf: bytes) -> str:
    upload = io.BytesIO(pdf)
    upload.name = "file.pdf"
    return str(api_client.post("/api/v1/verify", {"file": upload}).json()["verdict"])


@pytest.mark.django_db
def test_a_tsa_root_in_the_one_roots_file_vouches_for_timestamps_only(
    pki: ShortLivedPki, one_roots_file: Path, api_client: Client
) -> None:
    """Before: a document signed by a certificate of the TSA's root was "valid"."""
    sealed, tsa_made = ours_and_the_tsa_roots(pki)

    assert verdict(api_client, sealed) == "valid"  # its TSA's timestamps are trusted
    assert verdict(api_client, tsa_made) == "untrusted"
    signer_roots = {c.sha256 for c in signer_trust_roots()}
    assert asn1(pki.tsa_root).sha256 not in signer_roots
    assert asn1(pki.certificate).sha256 in signer_roots
    assert asn1(pki.tsa_root).sha256 in {c.sha256 for c in tsa_trust_roots()}


@pytest.mark.django_db
def test_the_system_check_names_the_roots_kept_to_timestamps(
    pki: ShortLivedPki, one_roots_file: Path
) -> None:
    messages = trust_roles_check()

    assert {m.id for m in messages} == {"esign.I001"}
    named = " ".join(m.msg for m in messages)
    assert "Seal tests TSA root CA" in named
    assert "Seal tests TSA'" in named  # the TSA's own certificate, in the file, too
    assert repr(asn1(pki.certificate).subject.human_friendly) not in named  # the signers' root


def test_the_system_check_names_a_root_listed_for_both_roles(
    pki: ShortLivedPki, settings: Any, tmp_path: Path
) -> None:
    signers, tsas = tmp_path / "signers.pem", tmp_path / "tsas.pem"
    signers.write_bytes(pem(pki.certificate, pki.tsa_root))
    tsas.write_bytes(pem(pki.tsa_root))
    settings.SEAL_TRUST_ROOTS_FILE = str(signers)
    settings.SEAL_TSA_TRUST_ROOTS_FILE = str(tsas)

    (message,) = trust_roles_check()

    assert message.id == "esign.W003"
    assert "Seal tests TSA root CA" in message.msg
    assert "is trusted for document signatures and for timestamps alike" in message.msg


def test_the_system_check_is_silent_when_roles_are_apart(
    pki: ShortLivedPki, settings: Any, tmp_path: Path
) -> None:
    signers, tsas = tmp_path / "signers.pem", tmp_path / "tsas.pem"
    signers.write_bytes(pem(pki.certificate))
    tsas.write_bytes(pem(pki.tsa_root))
    settings.SEAL_TRUST_ROOTS_FILE = str(signers)
    settings.SEAL_TSA_TRUST_ROOTS_FILE = str(tsas)

    assert trust_roles_check() == []
