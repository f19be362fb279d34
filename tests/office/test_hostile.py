"""Hostile Office documents are refused, or bounded, with a clear error naming them, and the next
document is converted as if nothing had happened: zip bombs, ten thousand pages, macros,
encryption, links to elsewhere, a LibreOffice that hangs or runs out of memory."""

from __future__ import annotations

import http.server
import io
import subprocess
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.engine.office import OfficeBusy, OfficeConverter, write_profile
from core.engine.office_sniff import MAX_ENTRIES, OfficeRefused, is_office_document, sniff
from tests.office.documents import (
    OFFICE,
    docx,
    lease_docx,
    linked_picture_docx,
    needs_fixtures,
    pages_docx,
    paragraph,
    pdf_text,
    soffice_by_hand,
    zip_bomb_docx,
)

TIMEOUT = 20.0
MEMORY = 1 << 30


@pytest.fixture
def converter() -> Iterator[OfficeConverter]:
    converter = OfficeConverter(workers=1)
    yield converter
    converter.close()


def convert(converter: OfficeConverter, data: bytes, name: str, **options):
    options = {"timeout": TIMEOUT, "memory_limit": MEMORY, "max_pages": 500, **options}
    return converter.convert(data, name, **options)


def assert_next_is_served(converter: OfficeConverter) -> None:
    result = convert(converter, lease_docx(), "lease.docx")
    assert "Residential Lease Agreement" in pdf_text(result.pdf)


def refusal(converter: OfficeConverter, data: bytes, name: str, **options) -> OfficeRefused:
    with pytest.raises(OfficeRefused) as refused:
        convert(converter, data, name, **options)
    assert name in str(refused.value)  # the message names the document
    return refused.value


def test_a_zip_bomb_is_refused_before_libreoffice_sees_it(converter) -> None:
    refused = refusal(converter, zip_bomb_docx(), "bomb.docx")
    assert refused.reason == "zip_bomb"
    assert "compression bomb" in str(refused)
    assert_next_is_served(converter)


def test_a_package_that_lies_about_its_sizes_is_refused() -> None:
    """Its directory says the part unpacks to 10 bytes; it unpacks to 8 MB of zeros."""
    bomb = bytearray(zip_bomb_docx(8 * 1_048_576))
    part = b"word/media/zeros.bin"
    record = bomb.find(b"PK\x01\x02")
    while bomb[record + 46 : record + 46 + len(part)] != part:
        record = bomb.find(b"PK\x01\x02", record + 4)
        assert record > 0
    bomb[record + 24 : record + 28] = (10).to_bytes(4, "little")  # its uncompressed size
    with zipfile.ZipFile(io.BytesIO(bomb)) as package:
        assert package.getinfo(part.decode()).file_size == 10
    with pytest.raises(OfficeRefused) as refused:
        sniff(bytes(bomb), "forged.docx")
    assert refused.value.reason == "zip_bomb"


def test_too_many_parts_is_refused() -> None:
    extra = {f"customXml/item{n}.xml": b"<a/>" for n in range(MAX_ENTRIES)}
    with pytest.raises(OfficeRefused) as refused:
        sniff(docx(paragraph("Parts"), extra=extra), "parts.docx")
    assert refused.value.reason == "too_large"


def test_ten_thousand_pages_are_refused_before_any_layout(converter) -> None:
    refused = refusal(converter, pages_docx(10_000), "long.docx", max_pages=500)
    assert refused.reason == "too_many_pages"
    assert "more than 500 pages" in str(refused)
    assert_next_is_served(converter)


def test_pages_past_the_limit_are_refused_after_conversion(converter) -> None:
    """RTF breaks are not counted beforehand: LibreOffice exports one page past the limit, and
    that page is the refusal."""
    rtf = b"{\\rtf1\\ansi " + b"\\page ".join(b"Page %d" % n for n in range(1, 13)) + b"}"
    refused = refusal(converter, rtf, "twelve.rtf", max_pages=5)
    assert refused.reason == "too_many_pages"
    assert convert(converter, rtf, "twelve.rtf", max_pages=12).pages == 12


@needs_fixtures
@pytest.mark.parametrize("name", ["tika-testWORD_macros.docm", "tika-testODTMacro.odt"])
def test_documents_with_macros_are_refused(converter, name: str) -> None:
    refused = refusal(converter, (OFFICE / name).read_bytes(), name)
    assert refused.reason == "macros"
    assert "contains macros" in str(refused)
    assert_next_is_served(converter)


@needs_fixtures
@pytest.mark.parametrize(
    "name", ["tika-testWORD_protected_passtika.docx", "tika-testODTEncrypted.odt"]
)
def test_encrypted_documents_are_refused(converter, name: str) -> None:
    refused = refusal(converter, (OFFICE / name).read_bytes(), name)
    assert refused.reason == "encrypted"
    assert "password-protected" in str(refused)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "unsupported"),  # a .doc
        (b"PK\x03\x04" + bytes(100), "damaged"),
        (b"Hello, just some text", "unsupported"),
    ],
)
def test_unknown_and_damaged_files_are_refused(data: bytes, reason: str) -> None:
    with pytest.raises(OfficeRefused) as refused:
        sniff(data, "upload.docx")
    assert refused.value.reason == reason


@needs_fixtures
def test_the_type_is_read_from_the_bytes_not_the_name() -> None:
    data = (OFFICE / "tika-testODFwithOOo3.odt").read_bytes()
    assert sniff(data, "looks-like.docx").name == "ODT"
    assert is_office_document(data)
    assert not is_office_document(b"%PDF-1.7\n")


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the handler's name
        self.requests.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"included text from elsewhere")

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[str]]]:
    _Recorder.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Recorder.requests
    server.shutdown()


def test_links_to_elsewhere_are_never_fetched(converter, recorder) -> None:
    url, requests = recorder
    data = linked_picture_docx(url)
    result = convert(converter, data, "linked.docx")
    assert "A picture from elsewhere" in pdf_text(result.pdf)
    assert requests == []
    # LibreOffice run by hand fetches the picture: the document does link out.
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "linked.docx").write_bytes(data)
        soffice_by_hand(folder, folder, [str(Path(folder) / "linked.docx")], timeout=120)
    assert "/linked.png" in requests


@needs_fixtures
def test_a_real_world_document_with_external_references_converts(converter, recorder) -> None:
    name = "tika-testExternalRefs.docx"
    result = convert(converter, (OFFICE / name).read_bytes(), name)
    assert result.pages >= 1


def test_the_profile_keeps_macros_off_and_links_unfetched(tmp_path: Path) -> None:
    write_profile(tmp_path)
    settings = (tmp_path / "user" / "registrymodifications.xcu").read_text()
    for setting in (
        'name="MacroSecurityLevel" oor:op="fuse"><value>3<',
        'name="DisableMacrosExecution" oor:op="fuse"><value>true<',
        'name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true<',
    ):
        assert setting in settings


def _hanging_soffice(folder: Path, token: str) -> str:
    """A stand-in for soffice that never finishes, with a child that never finishes either."""
    script = folder / "soffice"
    script.write_text(
        "#!/bin/sh\n"
        f'python3 -c "import time; time.sleep(1000)" {token} &\n'
        f'exec python3 -c "import time; time.sleep(1000)" {token}\n'
    )
    script.chmod(0o755)
    return str(script)


def _running(token: str) -> bool:
    return subprocess.run(["pgrep", "-f", token], capture_output=True).returncode == 0


def test_a_converter_that_hangs_is_killed_with_its_children(tmp_path: Path) -> None:
    token = f"hang-{tmp_path.name}"
    hanging = OfficeConverter(workers=1, soffice=_hanging_soffice(tmp_path, token))
    try:
        with pytest.raises(OfficeRefused) as refused:
            convert(hanging, lease_docx(), "lease.docx", timeout=1.0)
    finally:
        hanging.close()
    assert refused.value.reason == "timeout"
    assert "lease.docx took longer than 1 seconds" in str(refused.value)
    deadline = time.monotonic() + 10
    while _running(token) and time.monotonic() < deadline:
        time.sleep(0.05)  # waits for the kernel to finish the kills; the assertion is below
    assert not _running(token)


def test_a_conversion_past_its_memory_is_refused_and_the_next_served(converter) -> None:
    refused = refusal(converter, lease_docx(), "lease.docx", memory_limit=64 * 1_048_576)
    assert refused.reason == "failed"
    assert "more memory than a conversion may use" in str(refused)
    assert_next_is_served(converter)


def test_more_requests_than_converters_wait_then_are_refused_as_busy(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    script = tmp_path / "soffice"
    script.write_text(f'#!/bin/sh\nwhile [ ! -e "{gate}" ]; do sleep 0.02; done\n')
    script.chmod(0o755)
    busy = OfficeConverter(workers=1, queue_timeout=0.2, soffice=str(script))
    first = threading.Thread(
        target=lambda: pytest.raises(OfficeRefused, convert, busy, lease_docx(), "one.docx")
    )
    first.start()
    try:
        deadline = time.monotonic() + 10
        while busy._slots.qsize() and time.monotonic() < deadline:
            time.sleep(0.01)  # until the first holds the one converter
        with pytest.raises(OfficeBusy):
            convert(busy, lease_docx(), "two.docx")
    finally:
        gate.touch()
        first.join(30)
        busy.close()
