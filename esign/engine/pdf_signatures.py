"""The signatures of a PDF as a verifier counts them, read in every shape other tools write.

pyHanko reads a PDF's signature fields one by one; on files made elsewhere that miscounts and
misreads (each case is a file of the EU's reference validator's own tests):

- an encrypted PDF whose user password is empty opens in every reader without a question;
  pyHanko needs ``decrypt("")`` first, or refuses it as unreadable (`open_pdf`);
- a field whose signature dictionary holds no signature yet (a placeholder: no /Contents, or
  only zeros) is an unsigned field, not a broken signature (`signature_fields`);
- one signature dictionary referenced from two fields is one signature (`signature_fields`);
- a document timestamp stored with ``/Type /Sig`` (its /SubFilter ``ETSI.RFC3161``) is a
  document timestamp, not a signature pyHanko refuses (`TimestampStoredAsSignature`);
- a CMS pyHanko does not validate as it is (esign.engine.cms_formats) is put in its shape
  (`OtherCmsSignature`).

Pure Python (no Django).
"""

from __future__ import annotations

import functools
import io
from collections.abc import Iterator
from typing import Any

from asn1crypto import cms, core, x509
from pyhanko.pdf_utils import generic, misc
from pyhanko.pdf_utils.crypt import AuthStatus
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.fields import enumerate_sig_fields
from pyhanko.sign.general import find_cms_attribute_iter
from pyhanko.sign.validation import EmbeddedPdfSignature
from pyhanko.sign.validation.pdf_embedded import extract_contents

from esign.engine.cms_formats import Normalised, normalise
from esign.engine.pdf_recovery import Reader, open_recovered

DOCUMENT_TIMESTAMP_SUBFILTER = "/ETSI.RFC3161"
ADOBE_PKCS7_DETACHED = "/adbe.pkcs7.detached"


class EncryptedPdf(ValueError):
    """The PDF is encrypted with a password (or for recipients' keys): it cannot be read."""


def open_pdf(pdf: bytes) -> PdfFileReader:
    """A reader of ``pdf``; an encrypted one opened with the empty user password, as every PDF
    reader opens it without asking. Raises EncryptedPdf when that password does not open it."""
    try:
        reader: PdfFileReader = Reader(io.BytesIO(pdf), strict=False)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - misplaced cross-reference pointers: read as PDFBox does
        reader = open_recovered(pdf)
    _memoise_revision_lookups(reader)
    if reader.encrypted:
        try:
            opened = reader.decrypt(b"").status != AuthStatus.FAILED
        except misc.PdfReadError:  # public-key encryption: no password opens it
            opened = False
        if not opened:
            raise EncryptedPdf("the PDF is encrypted with a password")
    return reader


def _memoise_revision_lookups(reader: PdfFileReader) -> None:
    """Remember, for this reader only, in which revision each object was introduced and last
    changed. pyHanko looks these up by scanning every cross-reference section, again and again
    (its difference analysis: some 150,000 times for a file of 24 signatures, 40% of its time);
    the answers never change once the file is read."""
    xrefs = reader.xrefs
    for name in ("get_introducing_revision", "get_last_change", "get_historical_ref"):
        lookup = getattr(xrefs, name)
        setattr(xrefs, name, functools.lru_cache(maxsize=None)(lookup))
    # pyHanko reads an object "as of a revision" again at every request ("never cache historical
    # refs"); an object at the same place in the file is the same object, whatever the revision
    # it is asked as of: the analysis of 24 revisions re-read every CRL of the DSS in each.
    read = reader.get_object
    historical: dict[tuple[object, ...], generic.PdfObject] = {}

    def get_object(ref: generic.Reference, revision: int | None = None, **options: Any) -> Any:
        if revision is None:
            return read(ref, **options)
        key = (ref.idnum, ref.generation, xrefs.get_historical_ref(ref, revision), *options.items())
        if key not in historical:
            historical[key] = read(ref, revision=revision, **options)
        return historical[key]

    reader.get_object = get_object  # type: ignore[method-assign,assignment]


def signature_fields(
    reader: PdfFileReader,
) -> list[tuple[str, generic.PdfObject, generic.IndirectObject]]:
    """The filled signature fields of ``reader`` as (name, signature dictionary, field), as
    pyHanko's ``enumerate_sig_fields`` gives them, less placeholders (an unsigned field) and
    less fields whose signature dictionary an earlier field already holds (one signature).
    Found once per reader (the form of a filled-in file can hold thousands of fields)."""
    known = reader.__dict__.get("_signature_fields")
    if known is not None:
        return list(known)
    fields = []
    seen: set[object] = set()
    try:
        found = list(enumerate_sig_fields(reader, filled_status=True))
    except misc.PdfReadError:  # a loop in the form's field tree: walked with the loop cut
        found = _walk_fields(reader)
    for name, value, field_ref in found:
        key = value.reference if isinstance(value, generic.IndirectObject) else None
        if key is not None and key in seen:
            continue
        if _is_placeholder(value):
            continue
        if key is not None:
            seen.add(key)
        fields.append((name, value, field_ref))
    reader.__dict__["_signature_fields"] = tuple(fields)
    return fields


def _walk_fields(
    reader: PdfFileReader,
) -> list[tuple[str, generic.PdfObject, generic.IndirectObject]]:
    """The filled signature fields of the form, each field visited once (pyHanko refuses a
    field tree that loops: a file of DSS's tests is made to)."""
    found: list[tuple[str, generic.PdfObject, generic.IndirectObject]] = []
    form = reader.root.get("/AcroForm")
    fields = form.get("/Fields") if isinstance(form, generic.DictionaryObject) else None
    if not isinstance(fields, generic.ArrayObject):
        return found
    stack = [(fields.raw_get(i), "") for i in reversed(range(len(fields)))]
    seen: set[object] = set()
    while stack and len(seen) < 10_000:
        ref, parent_name = stack.pop()
        if not isinstance(ref, generic.IndirectObject) or ref.reference in seen:
            continue
        seen.add(ref.reference)
        field = ref.get_object()
        if not isinstance(field, generic.DictionaryObject):
            continue
        part = str(field.get("/T", ""))
        name = f"{parent_name}.{part}" if parent_name and part else part or parent_name
        kids = field.get("/Kids")
        if isinstance(kids, generic.ArrayObject):
            stack += [(kids.raw_get(i), name) for i in reversed(range(len(kids)))]
        if field.get("/FT") == "/Sig" and "/V" in field:
            found.append((name, field.raw_get("/V"), ref))
    return found


def _is_placeholder(value: generic.PdfObject) -> bool:
    """A signature dictionary that holds no signature: no /Contents, or only zero bytes (the
    space a signing tool reserved and never filled)."""
    try:
        dictionary = value.get_object()
        if not isinstance(dictionary, generic.DictionaryObject):
            return False
        if "/Contents" not in dictionary:
            return True
        return not extract_contents(dictionary).strip(b"\x00")
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - unreadable: a signature, reported as unreadable
        return False


def embedded_signature(
    reader: PdfFileReader, field: generic.PdfObject, name: str
) -> EmbeddedPdfSignature:
    """The signature of ``field`` as pyHanko models it: a `TimestampStoredAsSignature` or an
    `OtherCmsSignature` when pyHanko would refuse it as it is. Raises what pyHanko raises on a
    signature that cannot be read at all."""
    field_dict = field.get_object()
    if not isinstance(field_dict, generic.DictionaryObject):
        raise misc.PdfReadError("a signature field that is not a dictionary")
    sig_object = field_dict["/V"]
    subfilter = str(sig_object.get("/SubFilter", ""))
    if subfilter == DOCUMENT_TIMESTAMP_SUBFILTER or sig_object.get("/Type") == "/DocTimeStamp":
        if sig_object.get("/Type", "/Sig") == "/Sig":
            return TimestampStoredAsSignature(reader, field_dict, name)
        return EmbeddedPdfSignature(reader, field_dict, name)  # a token: pyHanko's to read
    signed_data = cms.ContentInfo.load(extract_contents(sig_object))["content"]
    normalised = normalise(signed_data, subfilter)
    if normalised is None:
        return EmbeddedPdfSignature(reader, field_dict, name)
    return OtherCmsSignature(reader, field_dict, name, normalised)


class TimestampStoredAsSignature(EmbeddedPdfSignature):
    """A document timestamp (RFC 3161 token, /SubFilter ETSI.RFC3161) whose dictionary says
    /Type /Sig: a document timestamp all the same (PDF 2.0 § 12.8.5 names /DocTimeStamp;
    some tools wrote /Sig, which DSS reads too)."""

    @property
    def sig_object_type(self) -> generic.NameObject:
        return generic.NameObject("/DocTimeStamp")

    @property
    def cms_notes(self) -> tuple[str, ...]:
        return ("The document timestamp's dictionary says /Type /Sig instead of /DocTimeStamp.",)


class OtherCmsSignature(EmbeddedPdfSignature):
    """A signature whose CMS pyHanko refuses as it is (esign.engine.cms_formats): modelled with
    the CMS in pyHanko's shape, checked the same way. ``cms_notes`` say what it is;
    ``cms_broken()`` why the signed bytes do not match what the CMS carries ("" when they do)."""

    def __init__(
        self,
        reader: PdfFileReader,
        field: generic.DictionaryObject,
        name: str,
        normalised: Normalised,
    ) -> None:
        # pyHanko's constructor, less the CMS extraction it would refuse (several SignerInfos)
        # and with the normalised CMS; the rest is as EmbeddedPdfSignature.__init__ (0.38) sets
        # it.
        self.reader = reader
        self.sig_field = field
        sig_object_ref = self.sig_field.raw_get("/V")
        self.sig_object = sig_object = sig_object_ref.get_object()
        try:
            self.byte_range = sig_object.raw_get("/ByteRange")
        except KeyError:
            raise misc.PdfReadError("Could not read /ByteRange entry in signature") from None
        self.pkcs7_content = extract_contents(sig_object)
        self.normalised = normalised
        self.signed_data = normalised.signed_data
        self.signer_info = normalised.signer_info
        self._sd_cert_info = None
        self.md_algorithm = self.signer_info["digest_algorithm"]["algorithm"].native.lower()
        self.external_md_algorithm = self.md_algorithm
        self.signed_revision = reader.xrefs.get_last_change(sig_object_ref.reference)
        self.coverage = None
        self.external_digests: dict[str, bytes] = {}
        self._docmdp = None
        self._fieldmdp = None
        self._docmdp_queried = self._fieldmdp_queried = False
        self.tst_signature_digest = None
        self.diff_result = None
        self._integrity_checked = False
        self.fq_name = name
        if normalised.signed_digest is not None:
            # pyHanko validates adbe.pkcs7.detached only; an adbe.pkcs7.sha1 signature, its
            # digest checked here (cms_broken), is one over its encapsulated digest.
            self.sig_object = generic.DictionaryObject(sig_object)
            self.sig_object["/SubFilter"] = generic.NameObject(ADOBE_PKCS7_DETACHED)

    @property
    def cms_notes(self) -> tuple[str, ...]:
        return self.normalised.notes

    def cms_broken(self) -> str:
        return self.normalised.broken(b"".join(signed_parts(self)))

    def compute_digest(self, hash_algo: str | None = None) -> bytes:
        digest = super().compute_digest(hash_algo)
        return self.normalised.digest(digest, hash_algo or self.external_md_algorithm)


def file_bytes(embedded: EmbeddedPdfSignature) -> bytes:
    """The whole file the signature is in (its reader's)."""
    stream = embedded.reader.stream
    if isinstance(stream, io.BytesIO):
        return stream.getvalue()
    stream.seek(0)
    return bytes(stream.read())


def signed_parts(embedded: EmbeddedPdfSignature) -> Iterator[bytes]:
    """The bytes the signature's /ByteRange names, part by part, each within the file."""
    data = file_bytes(embedded)
    values = [int(v) for v in embedded.byte_range]
    for start, length in zip(values[::2], values[1::2], strict=False):
        if start >= 0 and length >= 0:
            yield data[start : start + length]


def file_certificates(reader: PdfFileReader) -> list[x509.Certificate]:
    """Every certificate the file's signatures carry: their CMS's, and those of the timestamp
    tokens in their unsigned attributes (the issuers revocation data is checked against)."""
    found: list[x509.Certificate] = []
    try:
        fields = signature_fields(reader)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - hostile input: a file whose fields cannot be read has none
        return found
    for _, value, _ in fields:
        try:
            signed_data = cms.ContentInfo.load(extract_contents(value.get_object()))["content"]
            found += _certificates_of(signed_data)
            for signer_info in signed_data["signer_infos"]:
                unsigned = signer_info["unsigned_attrs"]
                if isinstance(unsigned, core.Void):
                    continue
                for token in find_cms_attribute_iter(unsigned, "signature_time_stamp_token"):
                    found += _certificates_of(token["content"])
        except MemoryError:
            raise
        except Exception:  # noqa: BLE001, S112 - hostile input: an unreadable signature has none
            continue
    return found


def _certificates_of(signed_data: cms.SignedData) -> list[x509.Certificate]:
    return [c.chosen for c in signed_data["certificates"] or () if c.name == "certificate"]
