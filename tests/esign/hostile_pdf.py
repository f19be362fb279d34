"""Hostile PDFs for the verification limits, made in the test (and by bench/verify_attack.py).

``oversized_signature_pdf()`` is the file of the security report: about 24 MB, one real PAdES
signature (the development seal's key, made for the call) whose /Contents holds about 12 MB of
hexadecimal digits: the CMS object, then zeros. pyHanko writes it itself (``bytes_reserved``), so
the /ByteRange and the cross-reference offsets are right and the signature is intact: only its
size is hostile. The rest of the size is an unused, uncompressed stream of random bytes.

The attacker audit's files (issue 32): ``object_stream_signatures_pdf()`` (six signatures of 4 MB
of hexadecimal digits, each in a compressed object stream: a 28 KB file), ``many_signatures_pdf()``
(eleven real signatures of 1 MB each: 23 MB) and ``literal_contents_pdf()`` (one signature whose
/Contents is a 20 MB literal string).
"""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime
from typing import Any

from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers

from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_keys import create_development_pki
from tests.pdfcheck import text_page

MB = 1_000_000


def one_page() -> bytes:
    return text_page("Agreement")


def oversized_signature_pdf(*, contents_hex_digits: int = 12 * MB, total: int = 24 * MB) -> bytes:
    """A signed PDF of about ``total`` bytes whose signature's /Contents is
    ``contents_hex_digits`` hexadecimal digits long."""
    filler = max(0, total - contents_hex_digits - 20_000)
    writer = IncrementalPdfFileWriter(io.BytesIO(one_page()), strict=False)
    writer.add_object(generic.StreamObject(stream_data=os.urandom(filler)))
    padded = io.BytesIO()
    writer.write(padded)

    pki = create_development_pki(now=datetime.now(UTC))
    credentials = load_credentials(SoftwareKey(pki.key_pem, pki.cert_pem, pki.ca_pem))
    meta = signers.PdfSignatureMetadata(
        field_name="Seal", md_algorithm="sha256", subfilter=fields.SigSeedSubFilter.PADES
    )
    output = signers.sign_pdf(
        IncrementalPdfFileWriter(padded, strict=False),
        meta,
        signer=credentials.signer,
        bytes_reserved=contents_hex_digits,  # pyHanko counts hexadecimal digits
    )
    return output.getvalue()


def _signature_dictionary(contents: generic.PdfObject) -> generic.DictionaryObject:
    """A signature's value dictionary whose /ByteRange is small and plausible: only /Contents
    is hostile."""
    return generic.DictionaryObject(
        {
            generic.NameObject("/Type"): generic.NameObject("/Sig"),
            generic.NameObject("/Filter"): generic.NameObject("/Adobe.PPKLite"),
            generic.NameObject("/SubFilter"): generic.NameObject("/ETSI.CAdES.detached"),
            generic.NameObject("/ByteRange"): generic.ArrayObject(
                [generic.NumberObject(n) for n in (0, 100, 102, 100)]
            ),
            generic.NameObject("/Contents"): contents,
        }
    )


def _with_signature_fields(
    writer: IncrementalPdfFileWriter, values: list[generic.IndirectObject]
) -> None:
    """Adds one signature field (a widget of the first page) per value to ``writer``'s form."""
    page_ref = writer.root["/Pages"]["/Kids"].raw_get(0)
    page = page_ref.get_object()
    annotations = generic.ArrayObject()
    form_fields = generic.ArrayObject()
    for number, value in enumerate(values):
        widget = writer.add_object(
            generic.DictionaryObject(
                {
                    generic.NameObject("/Type"): generic.NameObject("/Annot"),
                    generic.NameObject("/Subtype"): generic.NameObject("/Widget"),
                    generic.NameObject("/FT"): generic.NameObject("/Sig"),
                    generic.NameObject("/T"): generic.pdf_string(f"Signature{number + 1}"),
                    generic.NameObject("/Rect"): generic.ArrayObject([generic.NumberObject(0)] * 4),
                    generic.NameObject("/P"): page_ref,
                    generic.NameObject("/V"): value,
                }
            )
        )
        annotations.append(widget)
        form_fields.append(widget)
    page[generic.NameObject("/Annots")] = annotations
    writer.update_container(page)
    writer.root[generic.NameObject("/AcroForm")] = generic.DictionaryObject(
        {
            generic.NameObject("/Fields"): form_fields,
            generic.NameObject("/SigFlags"): generic.NumberObject(3),
        }
    )
    writer.update_root()


def object_stream_signatures_pdf(*, signatures: int = 6, hex_digits: int = 4 * MB) -> bytes:
    """A small file (some tens of KB) whose ``signatures`` signature dictionaries sit in a
    compressed object stream, each /Contents ``hex_digits`` hexadecimal digits of zeros: none of
    it is visible in the raw bytes, and it inflates to ``signatures * hex_digits`` bytes."""
    writer = IncrementalPdfFileWriter(io.BytesIO(one_page()), strict=False)
    writer.stream_xrefs = True
    values = []
    for _ in range(signatures):
        objects = writer.prepare_object_stream(compress=True)
        contents = generic.ByteStringObject(bytes(hex_digits // 2))
        values.append(writer.add_object(_signature_dictionary(contents), obj_stream=objects))
    _with_signature_fields(writer, values)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def many_signatures_pdf(*, signatures: int = 11, contents_bytes: int = 1_048_576) -> bytes:
    """A file signed ``signatures`` times (real PAdES signatures of the development seal's key),
    each signature's /Contents reserving ``contents_bytes`` bytes (twice as many hexadecimal
    digits): every one at the per-signature limit, the whole some 2 x ``signatures`` MB."""
    pki = create_development_pki(now=datetime.now(UTC))
    credentials = load_credentials(SoftwareKey(pki.key_pem, pki.cert_pem, pki.ca_pem))
    pdf = one_page()
    for number in range(signatures):
        meta = signers.PdfSignatureMetadata(
            field_name=f"Seal{number + 1}",
            md_algorithm="sha256",
            subfilter=fields.SigSeedSubFilter.PADES,
        )
        pdf = signers.sign_pdf(
            IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False),
            meta,
            signer=credentials.signer,
            bytes_reserved=2 * contents_bytes,
        ).getvalue()
    return pdf


class _LiteralString(generic.ByteStringObject):
    """A string written as a literal ``( ... )`` rather than pyHanko's ``< hex >``."""

    def write_to_stream(self, stream: Any, handler: Any = None, container_ref: Any = None) -> None:
        escaped = bytes(self).replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
        stream.write(b"(" + escaped + b")")


def literal_contents_pdf(*, length: int = 20 * MB) -> bytes:
    """A file with one signature whose /Contents is a literal string of ``length`` bytes (not
    hexadecimal digits): its /ByteRange says the contents are two bytes long."""
    writer = IncrementalPdfFileWriter(io.BytesIO(one_page()), strict=False)
    value = writer.add_object(_signature_dictionary(_LiteralString(b"A" * length)))
    _with_signature_fields(writer, [value])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
