"""What a file a signer attaches is, told by its bytes (esign.engine.attachment_files), and how
the zip names it (core.engine.archive's add_file). No database."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime

import pikepdf
import pytest
from PIL import Image

from core.engine.archive import PdfZip
from esign.engine.attachment_files import (
    EMPTY,
    HEIC,
    IMAGE_TOO_LARGE,
    NOT_ACCEPTED,
    UNREADABLE,
    check_attachment,
    sniff,
)
from tests.esign.conftest import contract_pdf

ALL = ("pdf", "png", "jpeg")


def image(kind: str, size: tuple[int, int] = (40, 30), mode: str = "RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size).save(out, kind)
    return out.getvalue()


def locked_pdf() -> bytes:
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(contract_pdf(1))) as pdf:
        pdf.save(out, encryption=pikepdf.Encryption(user="secret", owner="owner"))
    return out.getvalue()


def test_the_kind_is_told_by_the_bytes_not_the_name() -> None:
    assert sniff(contract_pdf(1)) == "pdf"
    assert sniff(b"\n  %PDF-1.7 ...") == "pdf"  # a PDF may start after some whitespace
    assert sniff(image("PNG")) == "png"
    assert sniff(image("JPEG")) == "jpeg"
    assert sniff(b"\x00\x00\x00\x1cftypheic" + b"\x00" * 20) == HEIC
    assert sniff(b"\x00\x00\x00\x1cftypmif1" + b"\x00" * 20) == HEIC
    assert sniff(image("GIF")) == ""
    assert sniff(b"<html>") == ""


@pytest.mark.parametrize(
    ("data", "accepted", "kind", "refusal"),
    [
        (contract_pdf(1), ALL, "pdf", ""),
        (image("PNG"), ALL, "png", ""),
        (image("JPEG"), ALL, "jpeg", ""),
        (image("JPEG"), ("pdf",), "", NOT_ACCEPTED),
        (image("GIF"), ALL, "", NOT_ACCEPTED),
        (b"", ALL, "", EMPTY),
        (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 40, ALL, "", HEIC),
        (b"%PDF-1.7\nnothing else", ALL, "", UNREADABLE),
        (locked_pdf(), ALL, "", UNREADABLE),  # nobody could read it without the password
        (image("PNG")[:40], ALL, "", UNREADABLE),  # cut short
        (image("PNG", (9000, 9000), "1"), ALL, "", IMAGE_TOO_LARGE),  # 81 MP, a few KB
    ],
)
def test_check_attachment(data: bytes, accepted: tuple[str, ...], kind: str, refusal: str) -> None:
    checked = check_attachment(data, accepted)
    assert (checked.kind, checked.refusal) == (kind, refusal)


def test_the_zip_keeps_the_extension_and_makes_names_unique_in_their_folder() -> None:
    archive = PdfZip(when=datetime(2026, 1, 2, tzinfo=UTC))
    first = archive.add_file("Ada - ID - photo.jpg", b"1", extension=".jpg", folder="attachments")
    second = archive.add_file("Ada - ID - photo", b"2", extension=".jpg", folder="attachments")
    long = archive.add_file("x" * 300 + ".jpg", b"3", extension=".jpg", folder="attachments")
    odd = archive.add_file("../../etc/passwd", b"4", extension=".pdf", folder="attachments")
    assert first == "attachments/Ada - ID - photo.jpg"
    assert second == "attachments/Ada - ID - photo-2.jpg"
    assert long.endswith(".jpg")
    assert len(long) <= len("attachments/") + 120
    assert odd == "attachments/_.._etc_passwd.pdf"
    names = zipfile.ZipFile(io.BytesIO(archive.finish())).namelist()
    assert names == [first, second, long, odd]
