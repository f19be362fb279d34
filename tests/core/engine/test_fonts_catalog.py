"""Fonts engine: catalog families downloaded once and then read from the cache, the real bold and
italic faces, and the downloads it refuses (failures, files that are not TrueType fonts)."""

from __future__ import annotations

import io
import threading

import pytest
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.t2CharStringPen import T2CharStringPen

from core.engine.fonts import FontFace, FontLibrary, FontUnavailable, load_catalog
from tests.core.engine.font_library import (
    FIRA,
    SOURCE_SANS_BOLD,
    CatalogServer,
    _cached_files,
    _download,
)

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
