"""Every signature timestamp inside a signature, each checked on its own.

A signature's unsigned attributes may hold several signature timestamp tokens (RFC 3161 tokens
over the signature value). pyHanko checks them in turn until one is trusted and reports the
last it checked: a broken token before a sound one, or after a trusted one, goes unseen. Here
each token is checked for what needs no trust: its message imprint is the digest of the
signature value, and its own CMS signature holds for its TSTInfo. A token whose authority's
certificate is not in it cannot be checked that far and is left to pyHanko's report.

Pure Python (no Django).
"""

from __future__ import annotations

import hashlib

from asn1crypto import cms, core, tsp, x509
from pyhanko.sign.general import find_cms_attribute_iter
from pyhanko.sign.validation.generic_cms import validate_sig_integrity

_ORDINALS = ("first", "second", "third", "fourth", "fifth")


def broken_timestamps(signer_info: cms.SignerInfo, signature_value: bytes) -> list[str]:
    """Why each signature timestamp token of ``signer_info`` that does not hold for
    ``signature_value`` (the signature value as signed: the file's own bytes) fails, one
    sentence each; [] when every token holds (or there are none)."""
    attributes = signer_info["unsigned_attrs"]
    if isinstance(attributes, core.Void):
        return []
    problems = []
    tokens = list(find_cms_attribute_iter(attributes, "signature_time_stamp_token"))
    for number, token in enumerate(tokens):
        which = (
            "The signature's timestamp"
            if len(tokens) == 1
            else f"The signature's {_ordinal(number)} timestamp (of {len(tokens)})"
        )
        why = _token_problem(token, signature_value)
        if why:
            problems.append(f"{which} {why}")
    return problems


def _ordinal(number: int) -> str:
    return _ORDINALS[number] if number < len(_ORDINALS) else f"number {number + 1}"


def _token_problem(token: cms.ContentInfo, signature_value: bytes) -> str:
    try:
        signed_data = token["content"]
        content = signed_data["encap_content_info"]["content"]
        info = content.parsed
        if not isinstance(info, tsp.TSTInfo):
            return "is not a timestamp token."
        imprint = info["message_imprint"]
        algorithm = imprint["hash_algorithm"]["algorithm"].native
        expected = hashlib.new(algorithm, signature_value).digest()
        if imprint["hashed_message"].native != expected:
            return "is over another signature value: it does not stamp this signature."
        signer_infos = list(signed_data["signer_infos"])
        if len(signer_infos) != 1:
            return "does not hold exactly one signer."
        certificate = _signer_certificate(signed_data, signer_infos[0])
        if certificate is None:
            return ""  # its authority's certificate is elsewhere: pyHanko's report says
        token_md = signer_infos[0]["digest_algorithm"]["algorithm"].native
        digest = hashlib.new(token_md, bytes(content)).digest()
        intact, valid = validate_sig_integrity(signer_infos[0], certificate, "tst_info", digest)
    except (ValueError, TypeError, KeyError) as error:  # asn1crypto on a malformed token
        return f"cannot be read ({type(error).__name__})."
    if not intact:
        return "was changed after its authority signed it."
    if not valid:
        return "does not carry its authority's valid signature."
    return ""


def _signer_certificate(signed_data: cms.SignedData, signer_info: cms.SignerInfo) -> object:
    """The certificate of the token's SignerInfo among its own certificates, or None."""
    sid = signer_info["sid"]
    for choice in signed_data["certificates"] or ():
        certificate = choice.chosen
        if sid.name == "issuer_and_serial_number":
            wanted = sid.chosen
            # the names' encodings compared: equal names are encoded alike in practice, and
            # asn1crypto's comparison of names (string preparation) is slow
            if (
                isinstance(certificate, x509.Certificate)
                and certificate.serial_number == wanted["serial_number"].native
                and certificate.issuer.dump() == wanted["issuer"].dump()
            ):
                return certificate
        elif getattr(certificate, "key_identifier", None) == sid.chosen.native:
            return certificate
    return None


def imprint_of(signed_data: cms.SignedData) -> bytes | None:
    """The message imprint (the digest it stamps) of a timestamp token's SignedData; None when
    it holds no TSTInfo."""
    try:
        info = signed_data["encap_content_info"]["content"].parsed
        if not isinstance(info, tsp.TSTInfo):
            return None
        return bytes(info["message_imprint"]["hashed_message"].native)
    except (ValueError, TypeError, KeyError):
        return None


def signature_timestamp_imprints(signer_info: cms.SignerInfo) -> list[bytes]:
    """The message imprints of every signature timestamp token of ``signer_info``."""
    try:
        attributes = signer_info["unsigned_attrs"]
        if isinstance(attributes, core.Void):
            return []
        tokens = list(find_cms_attribute_iter(attributes, "signature_time_stamp_token"))
    except (ValueError, TypeError, KeyError):
        return []
    found = (imprint_of(token["content"]) for token in tokens)
    return [imprint for imprint in found if imprint is not None]
