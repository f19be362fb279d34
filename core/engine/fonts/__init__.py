"""Fonts shared by fill (reportlab) and generate (WeasyPrint); pure Python, no Django.

    library = FontLibrary(cache_dir=..., download=safe_fetch)
    library.is_known_family("Fira Sans")              # cheap validation, no download
    face = library.resolve("Fira Sans", bold=True)    # FontNotFound / FontUnavailable
    for run_face, text in library.split_runs("Hello Привет 你好", face):
        canvas.setFont(register_face(run_face), size) ...
    css = library.css_font_faces("Fira Sans")         # @font-face rules for WeasyPrint

Built-in names: Courier, Helvetica and Times New Roman (PDF base-14 fonts) and Noto Sans (the
default, system files). Every other supported name is a family of the shipped web font catalog,
downloaded on first use. Names are case-sensitive.
"""

from core.engine.fonts.catalog import Catalog, load_catalog
from core.engine.fonts.errors import FontError, FontNotFound, FontUnavailable
from core.engine.fonts.face import FontFace
from core.engine.fonts.library import (
    BUILTIN_FAMILIES,
    DEFAULT_CATALOG_BASE_URL,
    DEFAULT_FALLBACK_FILES,
    DEFAULT_FAMILY,
    DEFAULT_SYSTEM_FONT_DIRS,
    FontLibrary,
)
from core.engine.fonts.pdf import register_face

__all__ = [
    "BUILTIN_FAMILIES",
    "DEFAULT_CATALOG_BASE_URL",
    "DEFAULT_FALLBACK_FILES",
    "DEFAULT_FAMILY",
    "DEFAULT_SYSTEM_FONT_DIRS",
    "Catalog",
    "FontError",
    "FontFace",
    "FontLibrary",
    "FontNotFound",
    "FontUnavailable",
    "load_catalog",
    "register_face",
]
