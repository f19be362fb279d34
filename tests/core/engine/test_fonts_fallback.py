"""Fonts engine: glyph fallback, mixed scripts split into runs of faces that draw every character
(Noto Sans, a catalog face's other subset files)."""

from __future__ import annotations

from core.engine.fonts import FontFace, FontLibrary, load_catalog, register_face
from tests.core.engine.font_library import _names, _pdf_fonts, _pdf_text, _render

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
