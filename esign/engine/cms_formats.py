"""CMS signatures that pyHanko 0.38 refuses as they are, put in the one shape it validates, and
what each one is, said to people.

pyHanko validates a PDF signature whose CMS is *detached* (no encapsulated content), holds one
SignerInfo and names a signature algorithm it knows. Signatures made by other tools, valid for
the EU's reference validator (DSS), are often not that:

- ``adbe.pkcs7.sha1``: the CMS encapsulates the SHA-1 digest of the signed bytes, and signs that
  digest. Read here: the encapsulated digest must be the signed bytes' SHA-1, and the signature is
  checked over the encapsulated digest.
- an *enveloping* CMS (``ETSI.CAdES.detached`` or ``adbe.pkcs7.detached`` with encapsulated
  content): the signed bytes are also inside the CMS. The encapsulated content must be exactly
  the signed bytes (DSS: an empty or different content does not verify).
- two or more SignerInfos: the first is the document's signature (DSS reads one signature).
- plain ECDSA (BSI TR-03111, ``ecdsa-plain-*``): the signature value is r || s, not the DER
  sequence; it is rewritten as the sequence and checked with the matching ECDSA algorithm.

`normalise` returns the CMS in pyHanko's shape and what it found; nothing here trusts anything.
`signed_attributes_sorted` says whether the signed attributes are DER-encoded (sorted): DSS
re-encodes them before checking the signature, so an unsorted set is a HASH_FAILURE there.

Pure Python (no Django).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from asn1crypto import algos, cms, core, parser

ADBE_PKCS7_SHA1 = "/adbe.pkcs7.sha1"

# BSI TR-03111 § 5.2.1: ecdsa-plain-signatures, by the digest they use.
_PLAIN_ECDSA = {
    "0.4.0.127.0.7.1.1.4.1.1": "sha1",
    "0.4.0.127.0.7.1.1.4.1.2": "sha224",
    "0.4.0.127.0.7.1.1.4.1.3": "sha256",
    "0.4.0.127.0.7.1.1.4.1.4": "sha384",
    "0.4.0.127.0.7.1.1.4.1.5": "sha512",
    "0.4.0.127.0.7.1.1.4.1.8": "sha3_224",
    "0.4.0.127.0.7.1.1.4.1.9": "sha3_256",
    "0.4.0.127.0.7.1.1.4.1.10": "sha3_384",
    "0.4.0.127.0.7.1.1.4.1.11": "sha3_512",
}


@dataclass(frozen=True)
class Normalised:
    """A CMS put in pyHanko's shape: ``signed_data`` detached, with one SignerInfo
    (``signer_info``), its ECDSA value DER-encoded."""

    signed_data: cms.SignedData
    signer_info: cms.SignerInfo
    notes: tuple[str, ...]  # what the CMS is, one sentence each
    # adbe.pkcs7.sha1: the encapsulated digest, the content the signature covers
    signed_digest: bytes | None = None
    # an enveloping CMS: its encapsulated content (compared with the signed bytes)
    enveloped: bytes | None = None

    def broken(self, signed_bytes: bytes) -> str:
        """Why the signature does not hold for ``signed_bytes`` (its byte range's bytes) as far
        as this shape goes: "" when nothing is wrong here (the signature value is pyHanko's to
        check)."""
        # SHA-1 because the signature says so: it is what is checked, not what is trusted
        sha1 = hashlib.sha1(signed_bytes, usedforsecurity=False).digest()
        if self.signed_digest is not None and sha1 != self.signed_digest:
            return (
                "The document was changed after it was signed: its SHA-1 digest is not the one "
                "the adbe.pkcs7.sha1 signature signed."
            )
        if self.enveloped is not None and self.enveloped != signed_bytes:
            return (
                "The signature's CMS envelops content that is not the signed bytes of the "
                f"document ({len(self.enveloped):,} bytes instead of {len(signed_bytes):,})."
            )
        return ""

    def digest(self, signed_bytes_digest: bytes, md_algorithm: str) -> bytes:
        """The digest the signature's message digest (or value) is checked against: the
        encapsulated digest's for adbe.pkcs7.sha1, the signed bytes' otherwise."""
        if self.signed_digest is not None:
            return hashlib.new(md_algorithm, self.signed_digest).digest()
        return signed_bytes_digest


def normalise(signed_data: cms.SignedData, subfilter: str) -> Normalised | None:
    """``signed_data`` in pyHanko's shape, or None when it is in that shape already.

    Raises ValueError when it is no CMS signature at all (no SignerInfo)."""
    signer_infos = list(signed_data["signer_infos"])
    if not signer_infos:
        raise ValueError("the CMS holds no SignerInfo")
    notes: list[str] = []
    signer_info = signer_infos[0]
    if len(signer_infos) > 1:
        notes.append(
            f"The signature's CMS holds {len(signer_infos)} signer infos; the first is the "
            "document's signature (as the EU's reference validator reads it)."
        )
    plain = _plain_ecdsa(signer_info)
    if plain is not None:
        signer_info = plain
        notes.append("The signature value is a plain ECDSA one (BSI TR-03111, r || s).")
    content_info = signed_data["encap_content_info"]
    content = content_info["content"]
    encapsulated = None if isinstance(content, core.Void) or content.native is None else content
    signed_digest = enveloped = None
    if subfilter == ADBE_PKCS7_SHA1:
        if encapsulated is None:
            raise ValueError("an adbe.pkcs7.sha1 signature without its digest")
        signed_digest = bytes(encapsulated.native)
        notes.append(
            "The signature is an adbe.pkcs7.sha1 one: it signs the SHA-1 digest of the "
            "document, a digest no longer deemed secure."
        )
    elif encapsulated is not None:
        enveloped = bytes(encapsulated.native)
        notes.append(
            "The signature's CMS is enveloping: it carries the signed bytes of the document "
            "inside it as well."
        )
    if not notes:
        return None
    detached = cms.SignedData(
        {
            **_present(signed_data, "version", "digest_algorithms", "certificates", "crls"),
            "encap_content_info": {"content_type": content_info["content_type"]},
            "signer_infos": [signer_info],
        }
    )
    return Normalised(
        signed_data=detached,
        signer_info=detached["signer_infos"][0],
        notes=tuple(notes),
        signed_digest=signed_digest,
        enveloped=enveloped,
    )


def _plain_ecdsa(signer_info: cms.SignerInfo) -> cms.SignerInfo | None:
    """``signer_info`` with its plain ECDSA value (r || s) as the DER sequence and the matching
    ``<digest>_ecdsa`` algorithm; None when it is not plain ECDSA."""
    digest = _PLAIN_ECDSA.get(signer_info["signature_algorithm"]["algorithm"].dotted)
    if digest is None:
        return None
    value = bytes(signer_info["signature"].native)
    if not value or len(value) % 2:
        raise ValueError("a plain ECDSA value of odd length")
    der = algos.DSASignature.from_p1363(value).dump()
    return cms.SignerInfo(
        {
            **_present(
                signer_info,
                "version",
                "sid",
                "digest_algorithm",
                "signed_attrs",
                "unsigned_attrs",
            ),
            "signature_algorithm": {"algorithm": f"{digest}_ecdsa"},
            "signature": der,
        }
    )


def _present(value: core.Sequence, *names: str) -> dict[str, object]:
    """The fields of ``value`` named, those it has (an absent optional one is left out)."""
    return {name: value[name] for name in names if not isinstance(value[name], core.Void)}


def signed_attributes_sorted(signer_info: cms.SignerInfo) -> bool:
    """Whether the signed attributes are in DER order (X.690 § 11.6: a SET OF's elements by
    their encodings, ascending). None present counts as sorted. Read from the bytes as they are
    in the file, element by element: no attribute is parsed."""
    attributes = signer_info["signed_attrs"]
    if isinstance(attributes, core.Void) or not attributes.contents:
        return True
    data = attributes.contents
    encodings: list[bytes] = []
    position = 0
    while position < len(data):
        length = parser.peek(data[position:])
        encodings.append(data[position : position + length])
        position += length
    return all(a <= b for a, b in zip(encodings, encodings[1:], strict=False))
