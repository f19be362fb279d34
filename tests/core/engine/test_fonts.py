"""Fonts engine: family names (built-in, system and catalog), the fonts WeasyPrint is pointed at,
and the catalog generator.

Catalog downloads and their cache are in test_fonts_catalog.py, glyph fallback in
test_fonts_fallback.py."""

from __future__ import annotations

import importlib.util

import pytest

from core.engine.fonts import DEFAULT_FAMILY, FontFace, FontLibrary, FontNotFound, load_catalog
from tests.core.engine.font_library import (
    NOTO,
    REPO,
    CatalogServer,
    _cached_files,
    _pdf_fonts,
    _pdf_text,
)

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
