"""FontLibrary: font names to drawable faces, glyph fallback runs, and CSS for WeasyPrint.

One instance per process is the intended use (the service layer builds it from settings): every
lookup, cmap and download is cached on it or per file, because this runs on each fill request.
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from fontTools.unicodedata import script_extension

from core.engine.fonts.catalog import SLOT_FALLBACKS, SLOTS, Catalog, load_catalog, slot_name
from core.engine.fonts.coverage import is_usable_truetype
from core.engine.fonts.downloads import Download, cached_font_file
from core.engine.fonts.errors import FontNotFound, FontUnavailable
from core.engine.fonts.face import FontFace

DEFAULT_FAMILY = "Noto Sans"
DEFAULT_CATALOG_BASE_URL = "https://fonts.gstatic.com/"
DEFAULT_SYSTEM_FONT_DIRS: tuple[Path, ...] = (
    Path("/usr/share/fonts/truetype/noto"),
    Path("/usr/share/fonts/truetype/droid"),
    Path("/usr/share/fonts/truetype/nanum"),  # Debian fonts-nanum: Hangul, if installed
)

# Built-in names drawn with PDF base-14 fonts, per slot (regular, bold, italic, bold_italic).
STANDARD_FAMILIES: dict[str, tuple[str, str, str, str]] = {
    "Courier": ("Courier", "Courier-Bold", "Courier-Oblique", "Courier-BoldOblique"),
    "Helvetica": ("Helvetica", "Helvetica-Bold", "Helvetica-Oblique", "Helvetica-BoldOblique"),
    "Times New Roman": ("Times-Roman", "Times-Bold", "Times-Italic", "Times-BoldItalic"),
}
# The default family, from system files, per slot. It is also the first glyph fallback.
NOTO_SANS_FILES = (
    "NotoSans-Regular.ttf",
    "NotoSans-Bold.ttf",
    "NotoSans-Italic.ttf",
    "NotoSans-BoldItalic.ttf",
)
BUILTIN_FAMILIES = frozenset({*STANDARD_FAMILIES, DEFAULT_FAMILY})

# Glyph fallbacks after Noto Sans, tried in order. A bare file name is looked up in the system
# font directories; "-Regular" files are swapped for their -Bold/-Italic/-BoldItalic sibling when
# one exists. Symbols and maths first, then the scripts of living languages, and the TrueType CJK
# fonts last as the widest net (Droid Sans Fallback has no Hangul; Nanum Gothic adds it where
# installed). Missing or CFF-only files are skipped.
DEFAULT_FALLBACK_FILES: tuple[str, ...] = (
    "NotoSansSymbols-Regular.ttf",
    "NotoSansSymbols2-Regular.ttf",
    "NotoSansMath-Regular.ttf",
    "NotoSansArabic-Regular.ttf",
    "NotoSansHebrew-Regular.ttf",
    "NotoSansDevanagari-Regular.ttf",
    "NotoSansBengali-Regular.ttf",
    "NotoSansGurmukhi-Regular.ttf",
    "NotoSansGujarati-Regular.ttf",
    "NotoSansOriya-Regular.ttf",
    "NotoSansTamil-Regular.ttf",
    "NotoSansTelugu-Regular.ttf",
    "NotoSansKannada-Regular.ttf",
    "NotoSansMalayalam-Regular.ttf",
    "NotoSansSinhala-Regular.ttf",
    "NotoSansThai-Regular.ttf",
    "NotoSansLao-Regular.ttf",
    "NotoSansKhmer-Regular.ttf",
    "NotoSansMyanmar-Regular.ttf",
    "NotoSerifTibetan-Regular.ttf",
    "NotoSansArmenian-Regular.ttf",
    "NotoSansGeorgian-Regular.ttf",
    "NotoSansEthiopic-Regular.ttf",
    "NotoSansSyriac-Regular.ttf",
    "NotoSansThaana-Regular.ttf",
    "NotoSansMongolian-Regular.ttf",
    "NotoSansCherokee-Regular.ttf",
    "NotoSansCanadianAboriginal-Regular.ttf",
    "NotoSansYi-Regular.ttf",
    "NotoMusic-Regular.ttf",
    "DroidSansFallbackFull.ttf",
    "NanumGothic.ttf",
)
_STYLE_SUFFIXES = ("-Regular", "-Bold", "-Italic", "-BoldItalic")  # per slot

# A face and the faces to try after it, in order. Their code points are read lazily (and cached
# per file), so a fallback's cmap is only parsed once some text actually needs it.
_Chain = tuple[FontFace, ...]


class FontLibrary:
    """Resolve font names to faces, split text into drawable runs, and emit @font-face CSS.

    cache_dir: where catalog font files are kept (created on demand; shareable by processes).
    download: fetches a URL and returns its bytes; raise on any failure.
    catalog_base_url: the catalog's file host; the data file stores paths relative to it.
    system_font_dirs: searched, in order, for Noto Sans and bare fallback file names.
    fallback_files: glyph fallbacks after Noto Sans (bare names or absolute paths), in order.
    catalog: the parsed catalog; defaults to the shipped data file (tests may pass a small one).
    """

    def __init__(
        self,
        *,
        cache_dir: Path,
        download: Download,
        catalog_base_url: str = DEFAULT_CATALOG_BASE_URL,
        system_font_dirs: Sequence[Path] = DEFAULT_SYSTEM_FONT_DIRS,
        fallback_files: Sequence[str | Path] = DEFAULT_FALLBACK_FILES,
        catalog: Catalog | None = None,
    ) -> None:
        self.cache_dir = Path(cache_dir).absolute()  # file:// URLs in CSS must be absolute
        self.catalog_base_url = catalog_base_url
        self._download = download
        self._system_font_dirs = tuple(Path(d) for d in system_font_dirs)
        self._fallback_files = tuple(fallback_files)
        self._catalog = catalog
        # Per-process caches. Races between threads are benign: at worst two compute the same
        # value, and a dict assignment is atomic.
        # (family, slot) -> the faces of that slot, primary (Latin) file first.
        self._faces: dict[tuple[str, str], tuple[FontFace, ...]] = {}
        self._chains: dict[FontFace, _Chain] = {}
        self._fallbacks: dict[str, tuple[FontFace, ...]] = {}

    # -- names --------------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            self._catalog = load_catalog()
        return self._catalog

    def is_known_family(self, family: str) -> bool:
        """Whether ``family`` names a supported font, exactly. Never downloads anything."""
        return family in BUILTIN_FAMILIES or family in self.catalog

    def check_family(self, family: str) -> None:
        """Raise FontNotFound unless the name is known, with a hint when only the case is off."""
        if self.is_known_family(family):
            return
        folded = family.casefold()
        suggestion = next(
            (
                name
                for name in (*BUILTIN_FAMILIES, *self.catalog.names())
                if name.casefold() == folded
            ),
            None,
        )
        raise FontNotFound(family, suggestion=suggestion)

    def family_problem(self, family: str) -> str | None:
        """Why ``family`` cannot be used (unknown, with the "did you mean" hint), or None.

        The one font check of every caller (template saves, fill and generate requests)."""
        try:
            self.check_family(family)
        except FontNotFound as error:
            return error.message
        return None

    # -- faces --------------------------------------------------------------------------------

    def resolve(self, family: str, *, bold: bool = False, italic: bool = False) -> FontFace:
        """The face to draw ``family`` with; the nearest existing style when one is missing.

        Catalog families are downloaded on first use (all unicode-subset files of the face).
        Raises FontNotFound for an unknown name, FontUnavailable when files cannot be had.
        """
        return self._slot_faces(family, slot_name(bold=bold, italic=italic))[0]

    def _slot_faces(self, family: str, slot: str) -> tuple[FontFace, ...]:
        cached = self._faces.get((family, slot))
        if cached is not None:
            return cached
        self.check_family(family)
        if family in STANDARD_FAMILIES:
            faces: tuple[FontFace, ...] = (_standard_face(family, slot),)
        elif family == DEFAULT_FAMILY:
            faces = (self._noto_sans(slot),)
        else:
            faces = self._catalog_faces(family, slot)
        self._faces[(family, slot)] = faces
        return faces

    def _noto_sans(self, slot: str) -> FontFace:
        # The nearest existing file, as for catalog families (a system without the italic
        # files still draws italic text, upright).
        for candidate in SLOT_FALLBACKS[slot]:
            path = self._find_system_file(NOTO_SANS_FILES[SLOTS.index(candidate)])
            if path is not None:
                return _file_face(DEFAULT_FAMILY, candidate, path)
        raise FontUnavailable(
            DEFAULT_FAMILY, f"no usable {NOTO_SANS_FILES[0]} in {self._system_font_dirs}"
        )

    def _catalog_faces(self, family: str, slot: str) -> tuple[FontFace, ...]:
        entry = self.catalog.family(family)
        assert entry is not None  # check_family passed
        real_slot = entry.nearest_slot(bold="bold" in slot, italic="italic" in slot)
        paths = [
            cached_font_file(
                family=family,
                relative_path=relative_path,
                base_url=self.catalog_base_url,
                cache_dir=self.cache_dir,
                download=self._download,
            )
            for relative_path in entry.slots[real_slot]
        ]
        return tuple(_file_face(family, real_slot, path) for path in paths)

    def _find_system_file(self, name: str | Path, *, validate: bool = True) -> Path | None:
        """The first existing file of that name in the system font dirs (or the absolute path).

        validate=False only checks that the file exists: fallbacks are validated lazily, when
        their cmap is first read (an unusable one covers nothing), to keep start-up cheap.
        """
        check = is_usable_truetype if validate else Path.is_file
        candidates = (
            [Path(name)]
            if Path(name).is_absolute()
            else [directory / name for directory in self._system_font_dirs]
        )
        return next((path for path in candidates if check(path)), None)

    # -- glyph fallback -----------------------------------------------------------------------

    def split_runs(self, text: str, face: FontFace) -> list[tuple[FontFace, str]]:
        """Split ``text`` into (face, substring) runs so each character is drawn by a face that
        has its glyph: the chosen face, then its other subset files, then Noto Sans in the same
        style, then the fallback files.

        Whitespace and combining marks stay in the current run; a character no face covers is
        left with the chosen face. Consecutive characters with the same face are merged.
        Punctuation the chosen face lacks (、 and 。 after kana, 「 before kanji) is drawn by the
        face of the text around it, see _punctuation_face.
        """
        chain = self._chain(face)
        runs: list[tuple[FontFace, str]] = []
        current = face
        for index, char in enumerate(text):
            code = ord(char)
            if not (runs and _stays_in_run(char, code, current)):
                if code > 0x7F and code not in face.codepoints() and _is_punctuation(char):
                    current = self._punctuation_face(text, index, runs, chain, face)
                else:
                    current = next((f for f in chain if code in f.codepoints()), face)
            if runs and runs[-1][0] == current:
                runs[-1] = (current, runs[-1][1] + char)
            else:
                runs.append((current, char))
        return runs

    def _punctuation_face(
        self,
        text: str,
        index: int,
        runs: list[tuple[FontFace, str]],
        chain: _Chain,
        face: FontFace,
    ) -> FontFace:
        """The face for the punctuation mark ``text[index]``, which the chosen face lacks.

        Punctuation belongs to no script, so the first fallback that has it would draw it, and
        several scripts' fonts have CJK punctuation (Noto Sans Mongolian has 、 and 。, raised
        and out of place beside Japanese). So it is drawn by the face of the run it is in (the
        text before it), else by the face of the next letter after it, else by a face that has
        its glyph and the letters of the scripts that use it (for 、 and 。 a CJK font), else by
        the first face that has it, as any other character."""
        code = ord(text[index])
        if runs and code in runs[-1][0].codepoints():
            return runs[-1][0]
        for char in text[index + 1 :]:
            if char.isspace() or _is_punctuation(char):
                continue
            after = next((f for f in chain if ord(char) in f.codepoints()), face)
            if code in after.codepoints():
                return after
            break
        having = [f for f in chain if code in f.codepoints()]
        samples = _script_samples(text[index])
        return next(
            (f for f in having if any(ord(s) in f.codepoints() for s in samples)),
            having[0] if having else face,
        )

    def _chain(self, face: FontFace) -> _Chain:
        chain = self._chains.get(face)
        if chain is not None:
            return chain
        slot = slot_name(bold=face.bold, italic=face.italic)
        siblings: tuple[FontFace, ...] = (face,)
        if (
            face.path is not None
            and face.family not in BUILTIN_FAMILIES
            and face.family in self.catalog
        ):
            siblings = self._slot_faces(face.family, slot)  # already cached by resolve()
        ordered = [face, *(f for f in siblings if f != face)]
        ordered += [f for f in self._fallback_faces(slot) if f not in ordered]
        chain = tuple(ordered)
        self._chains[face] = chain
        return chain

    def _fallback_faces(self, slot: str) -> tuple[FontFace, ...]:
        cached = self._fallbacks.get(slot)
        if cached is not None:
            return cached
        faces: list[FontFace] = []
        # A system without Noto Sans still gets the other fallbacks.
        with contextlib.suppress(FontUnavailable):
            faces.append(self._noto_sans(slot))
        for name in self._fallback_files:
            path = self._styled_fallback(name, slot)
            if path is not None:
                faces.append(_fallback_face(path))
        result = tuple(faces)
        self._fallbacks[slot] = result
        return result

    def _styled_fallback(self, name: str | Path, slot: str) -> Path | None:
        path = Path(name)
        regular = _STYLE_SUFFIXES[0]
        if slot != "regular" and path.stem.endswith(regular):
            stem = path.stem.removesuffix(regular) + _STYLE_SUFFIXES[SLOTS.index(slot)]
            styled = self._find_system_file(path.with_name(stem + path.suffix), validate=False)
            if styled is not None:
                return styled
        return self._find_system_file(path, validate=False)

    # -- WeasyPrint ---------------------------------------------------------------------------

    def css_font_faces(self, family: str) -> str:
        """@font-face rules pointing at the cached files of a catalog family ("" for built-ins).

        One rule per existing face and subset file, with font-weight 400/700 and font-style
        normal/italic; missing styles get no rule, so WeasyPrint synthesises them as a browser
        would. Downloads the family's files as needed (FontNotFound / FontUnavailable as in
        resolve()).
        """
        self.check_family(family)
        if family in BUILTIN_FAMILIES:
            return ""  # fontconfig has Noto Sans, and Liberation aliases for the others
        entry = self.catalog.family(family)
        assert entry is not None
        rules = []
        for slot in SLOTS:
            if slot not in entry.slots:
                continue
            weight = 700 if "bold" in slot else 400
            style = "italic" if "italic" in slot else "normal"
            for face in self._slot_faces(family, slot):
                assert face.path is not None
                rules.append(
                    "@font-face {\n"
                    f"  font-family: {_css_string(family)};\n"
                    f"  font-style: {style};\n"
                    f"  font-weight: {weight};\n"
                    f'  src: url({_css_string(face.path.as_uri())}) format("truetype");\n'
                    "}\n"
                )
        return "".join(rules)


def _standard_face(family: str, slot: str) -> FontFace:
    return FontFace(
        family=family,
        bold="bold" in slot,
        italic="italic" in slot,
        standard_name=STANDARD_FAMILIES[family][SLOTS.index(slot)],
    )


def _file_face(family: str, slot: str, path: Path) -> FontFace:
    return FontFace(family=family, bold="bold" in slot, italic="italic" in slot, path=path)


def _fallback_face(path: Path) -> FontFace:
    """A fallback file's face, its family and style read off a "Family-Style.ttf" file name.

    Fallbacks often exist in regular only, so the style must come from the file actually found,
    not from the style that was asked for.
    """
    family, _, style = path.stem.rpartition("-")
    suffix = "-" + style
    slot = (
        SLOTS[_STYLE_SUFFIXES.index(suffix)] if family and suffix in _STYLE_SUFFIXES else "regular"
    )
    return _file_face(family or path.stem, slot, path)


def _stays_in_run(char: str, code: int, current: FontFace) -> bool:
    """Whitespace and combining marks belong with the character before them."""
    if char.isspace():
        return True
    if unicodedata.category(char).startswith("M"):
        return code in current.codepoints()
    return False


def _is_punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


# A letter of each script that shares punctuation with others, to tell a font of that script:
# CJK first (Han, kana, Hangul, Bopomofo), as the scripts most text with that punctuation is in.
_SCRIPT_SAMPLES = {"Hani": "一", "Hira": "あ", "Kana": "ア", "Hang": "가", "Bopo": "ㄅ"}


def _script_samples(char: str) -> list[str]:
    """Letters of the scripts that use the punctuation mark ``char`` (its Unicode
    Script_Extensions), CJK scripts only; none for marks every script uses ("," or "!")."""
    scripts = script_extension(char)
    return [sample for script, sample in _SCRIPT_SAMPLES.items() if script in scripts]


def _css_string(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")
    return f'"{escaped}"'
