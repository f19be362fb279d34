"""Fonts engine: names, catalog downloads and cache, glyph fallback runs, reportlab and WeasyPrint.

Catalog downloads go to a local HTTP server that serves real Google Fonts TTFs from the shared
fixtures at the catalog's own URL paths. No database.
"""

from __future__ import annotations

import importlib.util
import io
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pypdf
import pytest
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.t2CharStringPen import T2CharStringPen
from reportlab.pdfgen import canvas

from core.engine.fonts import (
    DEFAULT_FAMILY,
    FontFace,
    FontLibrary,
    FontNotFound,
    FontUnavailable,
    load_catalog,
    register_face,
)

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


# -- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "bold", "italic", "standard_name"),
    [
        ("Courier", False, False, "Courier"),
        ("Courier", True, True, "Courier-BoldOblique"),
        ("Helvetica", False, False, "Helvetica"),
        ("Helvetica", True, False, "Helvetica-Bold"),
        ("Helvetica", False, True, "Helvetica-Oblique"),
        ("Times New Roman", False, False, "Times-Roman"),
        ("Times New Roman", False, True, "Times-Italic"),
        ("Times New Roman", True, True, "Times-BoldItalic"),
    ],
)
def test_standard_families_resolve_to_base14_fonts(
    library: FontLibrary, family: str, bold: bool, italic: bool, standard_name: str
) -> None:
    face = library.resolve(family, bold=bold, italic=italic)

    assert face == FontFace(family=family, bold=bold, italic=italic, standard_name=standard_name)
    assert face.key == standard_name


@pytest.mark.parametrize(
    ("bold", "italic", "file_name"),
    [
        (False, False, "NotoSans-Regular.ttf"),
        (True, False, "NotoSans-Bold.ttf"),
        (False, True, "NotoSans-Italic.ttf"),
        (True, True, "NotoSans-BoldItalic.ttf"),
    ],
)
def test_noto_sans_resolves_to_system_files(
    library: FontLibrary, bold: bool, italic: bool, file_name: str
) -> None:
    face = library.resolve(DEFAULT_FAMILY, bold=bold, italic=italic)

    assert DEFAULT_FAMILY == "Noto Sans"
    assert face == FontFace(family="Noto Sans", bold=bold, italic=italic, path=NOTO / file_name)


def test_names_are_case_sensitive(library: FontLibrary, catalog_server: CatalogServer) -> None:
    with pytest.raises(FontNotFound) as raised:
        library.resolve("helvetica")

    assert raised.value.code == "font_not_found"
    assert raised.value.family == "helvetica"
    assert str(raised.value) == (
        'Unknown font family "helvetica". Font names are case-sensitive: did you mean "Helvetica"?'
    )
    assert library.is_known_family("helvetica") is False
    assert library.is_known_family("fira sans") is False
    assert catalog_server.requests == []


def test_unknown_family_is_an_error_naming_it(library: FontLibrary) -> None:
    with pytest.raises(FontNotFound, match=r'^Unknown font family "Comic Sans MS"\.$'):
        library.resolve("Comic Sans MS")
    with pytest.raises(FontNotFound, match="Fira Sanz"):
        library.css_font_faces("Fira Sanz")


def test_is_known_family_covers_builtins_and_catalog_without_downloading(
    library: FontLibrary, catalog_server: CatalogServer
) -> None:
    known = ["Courier", "Helvetica", "Times New Roman", "Noto Sans", "Fira Sans", "Roboto"]

    assert [library.is_known_family(name) for name in known] == [True] * 6
    assert library.is_known_family("Times") is False
    assert library.is_known_family("") is False
    assert catalog_server.requests == []
    assert _cached_files(library) == []


def test_shipped_catalog_lists_families_with_latin_file_first() -> None:
    catalog = load_catalog()
    fira = catalog.family("Fira Sans")
    pacifico = catalog.family("Pacifico")

    assert catalog.meta["families"] == len(catalog)
    assert len(catalog) > 1800
    assert catalog.meta["source"].startswith("npm google-font-metadata@")
    assert catalog.meta["base_url"] == "https://fonts.gstatic.com/"
    assert fira is not None
    assert sorted(fira.slots) == ["bold", "bold_italic", "italic", "regular"]
    assert len(fira.slots["regular"]) == 7  # one file per unicode subset
    assert fira.slots["regular"][0].startswith("s/firasans/")
    assert pacifico is not None
    assert list(pacifico.slots) == ["regular"]


# -- catalog downloads ----------------------------------------------------------------------


def test_catalog_family_downloads_once_then_comes_from_the_cache(
    library: FontLibrary, catalog_server: CatalogServer
) -> None:
    regular_paths = list(load_catalog().family("Fira Sans").slots["regular"])  # type: ignore[union-attr]

    face = library.resolve("Fira Sans")
    again = library.resolve("Fira Sans")
    other_process = FontLibrary(
        cache_dir=library.cache_dir, download=_download, catalog_base_url=catalog_server.base_url
    )
    from_cache = other_process.resolve("Fira Sans")

    assert catalog_server.requests == regular_paths
    assert face == again == from_cache
    assert face.family == "Fira Sans"
    assert (face.bold, face.italic) == (False, False)
    assert face.path == library.cache_dir / regular_paths[0]
    assert face.path.read_bytes() == FIRA["regular"].read_bytes()  # type: ignore[union-attr]
    assert len(_cached_files(library)) == 7


def test_concurrent_first_uses_download_each_file_once(
    library: FontLibrary, catalog_server: CatalogServer
) -> None:
    faces: list[FontFace] = []
    threads = [
        threading.Thread(target=lambda: faces.append(library.resolve("Fira Sans")))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(faces) == 4
    assert len(set(faces)) == 1
    assert sorted(catalog_server.requests) == sorted(
        load_catalog().family("Fira Sans").slots["regular"]  # type: ignore[union-attr]
    )
    assert len(_cached_files(library)) == 7  # no temporary files left behind


def test_bold_and_italic_select_the_real_faces(
    library: FontLibrary, catalog_server: CatalogServer
) -> None:
    bold = library.resolve("Fira Sans", bold=True)
    italic = library.resolve("Fira Sans", italic=True)
    source_bold = library.resolve("Source Sans 3", bold=True)

    assert (bold.bold, bold.italic) == (True, False)
    assert bold.path.read_bytes() == FIRA["bold"].read_bytes()  # type: ignore[union-attr]
    assert (italic.bold, italic.italic) == (False, True)
    assert italic.path.read_bytes() == FIRA["italic"].read_bytes()  # type: ignore[union-attr]
    assert source_bold.path.read_bytes() == SOURCE_SANS_BOLD.read_bytes()  # type: ignore[union-attr]
    assert len(catalog_server.requests) == 7 + 7 + 7


def test_missing_style_falls_back_to_the_nearest_face(
    library: FontLibrary, catalog_server: CatalogServer
) -> None:
    regular = library.resolve("Pacifico")
    bold_italic = library.resolve("Pacifico", bold=True, italic=True)

    assert bold_italic == regular
    assert (regular.bold, regular.italic) == (False, False)
    assert len(catalog_server.requests) == 5  # Pacifico's subset files, fetched once


@pytest.mark.parametrize(("status", "reason"), [(404, "Not Found"), (500, "Internal Server Error")])
def test_download_failure_raises_font_unavailable(
    library: FontLibrary, catalog_server: CatalogServer, status: int, reason: str
) -> None:
    roboto = load_catalog().family("Roboto")
    assert roboto is not None
    if status != 404:  # unknown paths get a 404 anyway
        catalog_server.routes[roboto.slots["regular"][0]] = (status, b"server error")

    with pytest.raises(FontUnavailable) as raised:
        library.resolve("Roboto")

    assert raised.value.code == "font_unavailable"
    assert raised.value.family == "Roboto"
    assert str(raised.value) == 'Font family "Roboto" could not be fetched.'
    assert raised.value.detail.endswith(f"failed: HTTPError: HTTP Error {status}: {reason}")
    assert _cached_files(library) == []


def test_bytes_that_are_not_a_truetype_font_are_refused(
    library: FontLibrary, catalog_server: CatalogServer
) -> None:
    coming_soon = load_catalog().family("Coming Soon")
    roboto = load_catalog().family("Roboto")
    assert coming_soon is not None
    assert roboto is not None
    catalog_server.routes[coming_soon.slots["regular"][0]] = (200, b"<html>Not a font</html>")
    catalog_server.routes[roboto.slots["regular"][0]] = (200, _cff_font())

    with pytest.raises(FontUnavailable, match=r'^Font family "Coming Soon" could not be fetched'):
        library.resolve("Coming Soon")
    with pytest.raises(FontUnavailable) as cff:
        library.resolve("Roboto")

    assert "no 'glyf' table" in cff.value.detail
    assert _cached_files(library) == []


def _cff_font() -> bytes:
    """A valid OpenType font with CFF outlines, which reportlab cannot embed."""
    builder = FontBuilder(1000, isTTF=False)
    builder.setupGlyphOrder([".notdef", "A"])
    builder.setupCharacterMap({ord("A"): "A"})
    pen = T2CharStringPen(500, None)
    pen.moveTo((0, 0))
    pen.lineTo((500, 700))
    pen.lineTo((0, 700))
    pen.closePath()
    charstrings = {".notdef": T2CharStringPen(500, None).getCharString(), "A": pen.getCharString()}
    builder.setupCFF("Test-Regular", {"FullName": "Test"}, charstrings, {})
    builder.setupHorizontalMetrics({".notdef": (500, 0), "A": (500, 0)})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Test", "styleName": "Regular"})
    builder.setupOS2()
    builder.setupPost()
    out = io.BytesIO()
    builder.save(out)
    return out.getvalue()


# -- glyph fallback -------------------------------------------------------------------------


def test_mixed_scripts_split_into_runs_that_render_every_character(library: FontLibrary) -> None:
    text = "Hello Привет 你好 ★ ∑"

    runs = library.split_runs(text, library.resolve("Noto Sans"))
    pdf = _render(runs)

    assert _names(runs) == [
        ("NotoSans-Regular.ttf", "Hello Привет "),
        ("DroidSansFallbackFull.ttf", "你好 "),
        ("NotoSansSymbols2-Regular.ttf", "★ "),
        ("NotoSansMath-Regular.ttf", "∑"),
    ]
    assert all(face.has_glyph(char) for face, chunk in runs for char in chunk if char != " ")
    assert _pdf_fonts(pdf) == {
        "NotoSans-Regular",
        "DroidSansFallback",
        "NotoSansSymbols2-Regular",
        "NotoSansMath-Regular",
    }
    assert _pdf_text(pdf) == text


def test_fallback_keeps_bold_and_italic_where_noto_sans_has_them(library: FontLibrary) -> None:
    runs = library.split_runs("Ω∑你", library.resolve("Helvetica", bold=True, italic=True))

    assert _names(runs) == [
        ("NotoSans-BoldItalic.ttf", "Ω"),
        ("NotoSansMath-Regular.ttf", "∑"),
        ("DroidSansFallbackFull.ttf", "你"),
    ]


def test_standard_font_falls_back_to_noto_sans_for_cyrillic(library: FontLibrary) -> None:
    text = "Grüße € Привет"

    runs = library.split_runs(text, library.resolve("Helvetica"))
    pdf = _render(runs)

    assert _names(runs) == [("Helvetica", "Grüße € "), ("NotoSans-Regular.ttf", "Привет")]
    assert _pdf_fonts(pdf) == {"Helvetica", "NotoSans-Regular"}
    assert _pdf_text(pdf) == text


def test_whitespace_and_combining_marks_stay_in_the_current_run(library: FontLibrary) -> None:
    face = library.resolve("Times New Roman")

    runs = library.split_runs(" Да\n нет\u0301 ok", face)

    assert _names(runs) == [
        ("Times-Roman", " "),
        ("NotoSans-Regular.ttf", "Да\n нет\u0301 "),
        ("Times-Roman", "ok"),
    ]
    assert library.split_runs("", face) == []


def test_catalog_face_uses_its_other_subset_files_before_noto_sans(
    library: FontLibrary,
) -> None:
    face = library.resolve("Pacifico")
    latin_ext = library.cache_dir / load_catalog().family("Pacifico").slots["regular"][1]  # type: ignore[union-attr]

    runs = library.split_runs("Hi Привет 你", face)

    assert face.has_glyph("П") is False  # the Latin subset file has no Cyrillic
    assert runs[:2] == [
        (face, "Hi "),
        (FontFace(family="Pacifico", bold=False, italic=False, path=latin_ext), "Привет "),
    ]
    assert _names(runs)[2] == ("DroidSansFallbackFull.ttf", "你")
    assert _pdf_text(_render(runs)) == "Hi Привет 你"


def test_a_fallback_face_can_start_a_split(library: FontLibrary) -> None:
    (droid, _), *_ = library.split_runs("你", library.resolve("Noto Sans"))

    runs = library.split_runs("你好 Hi", droid)

    # Droid Sans Fallback has no Latin letters: those go to Noto Sans, as for any face.
    assert _names(runs) == [("DroidSansFallbackFull.ttf", "你好 "), ("NotoSans-Regular.ttf", "Hi")]


def test_register_face_returns_a_stable_name(library: FontLibrary) -> None:
    face = library.resolve("Noto Sans", bold=True)

    assert register_face(face) == register_face(face) == face.key
    assert face.key.startswith("NotoSans-Bold-")
    assert register_face(library.resolve("Courier")) == "Courier"


# -- WeasyPrint ----------------------------------------------------------------------------------


def test_css_font_faces_is_empty_for_builtins(library: FontLibrary) -> None:
    assert [library.css_font_faces(name) for name in ("Noto Sans", "Helvetica")] == ["", ""]


def test_css_font_faces_points_weasyprint_at_the_cached_files(
    library: FontLibrary, catalog_server: CatalogServer
) -> None:
    import weasyprint  # slow to import: only this test needs it

    css = library.css_font_faces("Fira Sans")
    regular = library.resolve("Fira Sans")
    html = (
        f"<style>{css} body {{ font-family: 'Fira Sans' }}</style>"
        "<p>Plain <b>bold</b> <i>italic</i></p>"
    )
    pdf = weasyprint.HTML(string=html, base_url=str(library.cache_dir)).write_pdf()

    assert css.count("@font-face") == 28  # 4 faces x 7 subset files
    assert css.startswith(
        "@font-face {\n"
        '  font-family: "Fira Sans";\n'
        "  font-style: normal;\n"
        "  font-weight: 400;\n"
        f'  src: url("{regular.path.as_uri()}") format("truetype");\n'  # type: ignore[union-attr]
        "}\n"
    )
    assert len(catalog_server.requests) == 28
    assert _pdf_fonts(pdf) == {"Fira-Sans", "Fira-Sans-Bold", "Fira-Sans-Italic"}
    assert _pdf_text(pdf) == "Plain bold italic"


# -- catalog generator ----------------------------------------------------------------------------


def test_build_catalog_keeps_the_weights_nearest_400_and_700() -> None:
    spec = importlib.util.spec_from_file_location("build", REPO / "scripts/build_font_catalog.py")
    assert spec is not None
    assert spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)

    def files(token: str) -> dict:
        url = f"https://fonts.gstatic.com/s/x/v1/{token}.ttf"
        return {
            "greek": {"url": {"truetype": url.replace(".ttf", "g.ttf")}},
            "latin": {"url": {"truetype": url}},
        }

    entry = {
        "family": "X",
        "variants": {
            "300": {"normal": files("n300")},
            "500": {"normal": files("n500")},
            "900": {"normal": files("n900")},
            "400": {"italic": files("i400")},
        },
    }

    assert build.build_family(entry) == {
        "dir": "s/x/v1/",
        "regular": [["latin", "n500"], ["greek", "n500g"]],
        "bold": [["latin", "n900"], ["greek", "n900g"]],
        "italic": [["latin", "i400"], ["greek", "i400g"]],
    }


def test_a_right_to_left_line_with_an_unassigned_code_point_is_drawn_not_refused() -> None:
    """U+05EB lies in the Hebrew block but is unassigned: no bidirectional class, on which
    python-bidi failed an assertion (a fill answered 500). It becomes U+FFFD, nothing else moves."""
    from core.engine.fonts.shaping import visual_line

    assert visual_line("\u05eb") == "\ufffd"
    assert visual_line("שלום \u05eb 12") == "12 \ufffd םולש"
