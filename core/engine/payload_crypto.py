"""Encrypted payloads in the format the published clients use.

    <base64(RSA-OAEP(ascii hex of a 32-byte AES key))>
    :<hex IV, 16 bytes>
    :<hex AES-256-CBC(PKCS7(utf-8 JSON))>      (one line, no spaces)

RSA-OAEP uses SHA-1 for the digest and MGF1, no label. The RSA part encrypts the 64-character
hex *string* of the AES key, not its raw bytes. Keys are PEM: SPKI public, PKCS#8 private.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from typing import Any

from cryptography.exceptions import InvalidKey
from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.asymmetric.padding import MGF1, OAEP
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

_OAEP = OAEP(mgf=MGF1(algorithm=hashes.SHA1()), algorithm=hashes.SHA1(), label=None)  # noqa: S303 - the wire format fixes SHA-1 OAEP
KEY_BITS = 2048


class PayloadDecryptError(Exception):
    code = "payload_not_decryptable"


def generate_keypair() -> tuple[bytes, bytes]:
    """(private PKCS#8 PEM, public SPKI PEM) of a new RSA key."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private_pem, public_pem


def encrypt_payload(value: Any, public_pem: bytes) -> str:
    """Encrypt a JSON value (or a string, sent as is) for the holder of the private key."""
    text = value if isinstance(value, str) else json.dumps(value)
    public_key = serialization.load_pem_public_key(public_pem)
    if not isinstance(public_key, rsa.RSAPublicKey):
        raise ValueError("an RSA public key is needed")
    aes_key = os.urandom(32)
    iv = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(text.encode()) + padder.finalize()
    encryptor = Cipher(algorithms.AES(aes_key), modes.CBC(iv)).encryptor()
    ciphertext = encryptor.update(padded) + encryptor.finalize()
    wrapped = public_key.encrypt(aes_key.hex().encode("ascii"), _OAEP)
    return f"{base64.b64encode(wrapped).decode()}:{iv.hex()}:{ciphertext.hex()}"


def decrypt_payload(text: str, private_pem: bytes) -> Any:
    """The JSON value inside an encrypted payload; PayloadDecryptError if it does not open."""
    rsa_part, _, rest = text.strip().partition(":")
    iv_hex, _, ciphertext_hex = rest.partition(":")
    if not rsa_part or not iv_hex or not ciphertext_hex:
        raise PayloadDecryptError("not in the encrypted payload format")
    try:
        private_key = serialization.load_pem_private_key(private_pem, password=None)
        if not isinstance(private_key, rsa.RSAPrivateKey):
            raise PayloadDecryptError("the key is not an RSA key")
        key_hex = private_key.decrypt(base64.b64decode(rsa_part, validate=True), _OAEP)
        aes_key = bytes.fromhex(key_hex.decode("ascii"))
        iv = bytes.fromhex(iv_hex)
        ciphertext = bytes.fromhex(ciphertext_hex)
        if len(aes_key) != 32 or len(iv) != 16 or not ciphertext or len(ciphertext) % 16:
            raise PayloadDecryptError("wrong key, IV or ciphertext length")
        decryptor = Cipher(algorithms.AES(aes_key), modes.CBC(iv)).decryptor()
        padded = decryptor.update(ciphertext) + decryptor.finalize()
        unpadder = padding.PKCS7(128).unpadder()
        plain = unpadder.update(padded) + unpadder.finalize()
        return json.loads(plain.decode("utf-8"))
    except PayloadDecryptError:
        raise
    except (ValueError, TypeError, binascii.Error, InvalidKey, UnicodeDecodeError) as exc:
        raise PayloadDecryptError("the payload does not decrypt with this key") from exc


def protect_private_key(private_pem: bytes, secret: bytes) -> bytes:
    """The private key as encrypted PKCS#8 PEM, for storage at rest."""
    key = serialization.load_pem_private_key(private_pem, password=None)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(secret),
    )


def unprotect_private_key(protected_pem: bytes, secret: bytes) -> bytes:
    key = serialization.load_pem_private_key(protected_pem, password=secret)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
