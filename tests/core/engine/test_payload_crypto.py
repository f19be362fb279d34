"""The encrypted payload format of the published clients."""

import base64

import pytest
from cryptography.hazmat.primitives import serialization

from core.engine.payload_crypto import (
    _OAEP,
    PayloadDecryptError,
    decrypt_payload,
    encrypt_payload,
    generate_keypair,
    protect_private_key,
    unprotect_private_key,
)

PRIVATE, PUBLIC = generate_keypair()


def test_round_trip_of_a_json_value() -> None:
    value = {"name": "Zoë", "items": [1, 2.5, None, True], "nested": {"k": "你好"}}

    assert decrypt_payload(encrypt_payload(value, PUBLIC), PRIVATE) == value


def test_the_wire_shape_rsa_part_holds_the_hex_of_the_aes_key() -> None:
    text = encrypt_payload({"a": 1}, PUBLIC)
    rsa_part, iv_hex, ciphertext_hex = text.split(":")

    key = serialization.load_pem_private_key(PRIVATE, password=None)
    aes_key_hex = key.decrypt(base64.b64decode(rsa_part), _OAEP).decode("ascii")
    assert len(aes_key_hex) == 64
    assert bytes.fromhex(aes_key_hex)
    assert len(bytes.fromhex(iv_hex)) == 16
    assert len(bytes.fromhex(ciphertext_hex)) % 16 == 0


@pytest.mark.parametrize(
    "text",
    [
        "not encrypted at all",
        "abc:def",
        "Zm9v:00112233445566778899aabbccddeeff:00",
        encrypt_payload({"a": 1}, generate_keypair()[1]),  # another organization's key
    ],
)
def test_what_does_not_decrypt_is_one_clear_error(text: str) -> None:
    with pytest.raises(PayloadDecryptError):
        decrypt_payload(text, PRIVATE)


def test_the_private_key_is_stored_encrypted() -> None:
    protected = protect_private_key(PRIVATE, b"secret")

    assert b"ENCRYPTED PRIVATE KEY" in protected
    assert unprotect_private_key(protected, b"secret") == PRIVATE
    with pytest.raises(ValueError):  # noqa: PT011 - cryptography's own error type
        unprotect_private_key(protected, b"wrong")
