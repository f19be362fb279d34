"""Hostile PDFs for the verification limits, made in the test (and by bench/verify_attack.py).

``oversized_signature_pdf()`` is the file of the security report: about 24 MB, one real PAdES
signature (the development seal's key, made for the call) whose /Contents holds about 12 MB of
hexadecimal digits: the CMS object, then zeros. pyHanko writes it itself (``bytes_reserved``), so
the /ByteRange and the cross-reference offsets are right and the signature is intact: only its
size is hostile. The rest of the size is an unused, uncompressed stream of random bytes.
"""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime

from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers
from reportlab.pdfgen.canvas import Canvas

from esign.engine.seal_credentials import SoftwareKey, load_credentials
from esign.engine.seal_keys import create_development_pki

MB = 1_000_000


def one_page() -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(612, 792), invariant=1)
    canvas.drawString(72, 720, "Agreement")
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


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
