import io

import pytest
from django.core.management import call_command

from accounts.models import PayloadKeyPair
from accounts.payload_keys import payload_decrypt, payload_key_create
from core.engine.payload_crypto import encrypt_payload
from core.errors import ValidationFailed


def test_command_prints_the_public_key_and_stores_the_private_key_encrypted(organization) -> None:
    out = io.StringIO()
    call_command("create_payload_key", "acme", stdout=out)

    pair = PayloadKeyPair.objects.get(organization=organization)
    assert out.getvalue().startswith("-----BEGIN PUBLIC KEY-----")
    assert out.getvalue().strip() == pair.public_pem.strip()
    assert pair.private_pem_encrypted.startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")


def test_data_encrypted_with_the_public_key_decrypts(organization) -> None:
    pair = payload_key_create(organization=organization)
    text = encrypt_payload({"name": "Ada"}, pair.public_pem.encode())

    assert payload_decrypt(organization=organization, text=text) == {"name": "Ada"}


def test_a_string_that_does_not_decrypt_is_a_400_on_data(organization, other_organization) -> None:
    payload_key_create(organization=organization)
    theirs = payload_key_create(organization=other_organization)
    text = encrypt_payload({"name": "Ada"}, theirs.public_pem.encode())

    with pytest.raises(ValidationFailed) as failure:
        payload_decrypt(organization=organization, text=text)
    assert failure.value.as_wire()["fields"][0]["property"] == "data"


def test_without_a_key_pair_an_encrypted_string_is_refused(organization) -> None:
    with pytest.raises(ValidationFailed, match="no payload key pair"):
        payload_decrypt(organization=organization, text="a:b:c")
