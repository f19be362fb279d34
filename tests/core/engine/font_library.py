"""The fonts engine's tests' shared pieces: font files from the repository, a local Google-Fonts-like
catalog server and a font library over it (fixtures), and readers of the fonts and text of
rendered PDFs."""

from __future__ import annotations

import io
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pypdf
import pytest
from reportlab.pdfgen import canvas

from core.engine.fonts import FontFace, FontLibrary, load_catalog, register_face

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO.parent / "shared" / "fixtures" / "html"
NOTO = Path("/usr/share/fonts/truetype/noto")
FIRA = {
    "regular": FIXTURES / "weasyprint-report/FiraSans-Regular.ttf",
    "bold": FIXTURES / "weasyprint-report/FiraSans-Bold.ttf",
    "italic": FIXTURES / "weasyprint-report/FiraSans-Italic.ttf",
    # No bold italic fixture: the light italic stands in for it.
    "bold_italic": FIXTURES / "weasyprint-report/FiraSans-LightItalic.ttf",
}
SOURCE_SANS_BOLD = FIXTURES / "weasyprint-invoice/SourceSans3-Bold.ttf"
# A real Google subset file: Latin only (229 characters), as the catalog serves it.
PACIFICO_LATIN = FIXTURES / "weasyprint-invoice/pacifico.ttf"
# The full Pacifico, with Cyrillic: served for every other subset of the family.
PACIFICO_FULL = FIXTURES / "weasyprint-letter/fonts/Pacifico-Regular.ttf"


@dataclass
class CatalogServer:
    base_url: str
    routes: dict[str, tuple[int, bytes]] = field(default_factory=dict)  # path -> status, body
    requests: list[str] = field(default_factory=list)


@pytest.fixture
def catalog_server() -> Iterator[CatalogServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    state = CatalogServer(base_url=f"http://127.0.0.1:{server.server_address[1]}/")
    server.state = state  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    _serve_family(state, "Fira Sans", FIRA)
    _serve_family(state, "Source Sans 3", {"bold": SOURCE_SANS_BOLD})
    pacifico = load_catalog().family("Pacifico")
    assert pacifico is not None
    for index, path in enumerate(pacifico.slots["regular"]):
        state.routes[path] = (200, (PACIFICO_FULL if index else PACIFICO_LATIN).read_bytes())
    yield state
    server.shutdown()
    server.server_close()
    thread.join()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        state: CatalogServer = self.server.state  # type: ignore[attr-defined]
        path = self.path.lstrip("/")
        state.requests.append(path)
        status, body = state.routes.get(path, (404, b"not found"))
        self.send_response(status)
        self.send_header("Content-Type", "font/ttf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # keep the test output quiet
        pass


def _serve_family(server: CatalogServer, family: str, files: dict[str, Path]) -> None:
    entry = load_catalog().family(family)
    assert entry is not None
    for slot, source in files.items():
        for path in entry.slots[slot]:
            server.routes[path] = (200, source.read_bytes())


def _download(url: str) -> bytes:
    # Like the project's safe fetcher: raises on any HTTP error. No proxy for 127.0.0.1.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=5) as response:
        return response.read()


@pytest.fixture
def library(tmp_path: Path, catalog_server: CatalogServer) -> FontLibrary:
    return FontLibrary(
        cache_dir=tmp_path / "fonts", download=_download, catalog_base_url=catalog_server.base_url
    )


def _names(runs: list[tuple[FontFace, str]]) -> list[tuple[str, str]]:
    return [(face.standard_name or face.path.name, text) for face, text in runs]  # type: ignore[union-attr]


def _cached_files(library: FontLibrary) -> list[Path]:
    if not library.cache_dir.exists():
        return []
    return sorted(path for path in library.cache_dir.rglob("*") if path.is_file())


def _render(runs: list[tuple[FontFace, str]]) -> bytes:
    """Draw the runs on one line with reportlab, switching font per run."""
    out = io.BytesIO()
    # The first run's font as the initial one, so reportlab's default Helvetica stays out.
    pdf = canvas.Canvas(out, initialFontName=register_face(runs[0][0]))
    text = pdf.beginText(72, 720)
    for face, chunk in runs:
        text.setFont(register_face(face), 14)
        text.textOut(chunk)
    pdf.drawText(text)
    pdf.save()
    return out.getvalue()


def _pdf_fonts(data: bytes) -> set[str]:
    """Base font names on the first page, without reportlab's or WeasyPrint's subset prefix."""
    page = pypdf.PdfReader(io.BytesIO(data)).pages[0]
    fonts = page["/Resources"]["/Font"].get_object()  # type: ignore[index]
    return {
        str(font.get_object()["/BaseFont"]).lstrip("/").split("+")[-1] for font in fonts.values()
    }


def _pdf_text(data: bytes) -> str:
    return pypdf.PdfReader(io.BytesIO(data)).pages[0].extract_text()
