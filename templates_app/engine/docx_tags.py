"""Text tags in a Word document (DOCX) before it is converted to PDF, checked against the PDF.

Word splits the text of a paragraph into runs wherever its formatting, spelling marks or edit
history change, so a tag typed as one word is often stored in pieces (``{{Sig`` ``nature}}``).
The tags are read here from each paragraph's runs joined (body, headers, footers, footnotes,
text boxes), as Word shows them; deleted text of tracked changes is not read. The fields are
placed from the converted PDF (``text_tags``, where each tag's box is); this says which tags
the document holds that the PDF does not show (hidden text, a tag broken by the conversion), so
no field is lost without a word.

Pure Python (defusedxml: a Word document is the uploader's XML).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from defusedxml import ElementTree

from templates_app.engine.errors import ImportRefused
from templates_app.engine.tag_grammar import Tag, TagSyntaxError, parse_tag
from templates_app.engine.text_tags import FoundTag

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# The parts whose text a reader sees.
_PARTS = re.compile(r"^word/(document|header\d*|footer\d*|footnotes|endnotes)\.xml$")
_TAG = re.compile(r"\{\{.*?\}\}", re.DOTALL)
# A part larger than this once inflated is refused (a zip bomb is small until opened).
MAX_PART_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class DocxTag:
    part: str  # word/document.xml, word/header1.xml...
    text: str  # the tag as written, its spaces as one
    tag: Tag | None  # None: it does not read
    error: str = ""


def _paragraphs(root: Any) -> list[str]:
    """The text of each paragraph (w:p), nested ones (text boxes) on their own."""
    out: list[str] = []

    def walk(element: Any, text: list[str] | None) -> None:
        if element.tag == _W + "p":
            text = []
            out.append("")  # this paragraph's place, filled once it is read
            index = len(out) - 1
            for child in element:
                walk(child, text)
            out[index] = "".join(text)
            return
        if text is not None:
            if element.tag == _W + "t" and element.text:
                text.append(element.text)
            elif element.tag in (_W + "tab", _W + "br", _W + "cr"):
                text.append(" ")
        for child in element:
            walk(child, text)

    walk(root, None)
    return out


def docx_tags(data: bytes) -> list[DocxTag]:
    """The tags written in the Word document ``data``, in the order of its parts and text.
    Raises ImportRefused (``not_docx``) for a file that is not a readable DOCX."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = [info for info in archive.infolist() if _PARTS.match(info.filename)]
        if not any(info.filename == "word/document.xml" for info in names):
            raise ImportRefused("not_docx", "The file is not a Word document (DOCX).")
        found: list[DocxTag] = []
        # The body first, then headers, footers and notes, as a reader meets them.
        for info in sorted(names, key=lambda info: info.filename != "word/document.xml"):
            if info.file_size > MAX_PART_BYTES:
                raise ImportRefused("too_large", "The Word document is too large to read.")
            with archive.open(info) as part:
                root = ElementTree.fromstring(part.read(MAX_PART_BYTES + 1))
            for paragraph in _paragraphs(root):
                for match in _TAG.finditer(paragraph):
                    text = " ".join(match.group(0).split())
                    try:
                        found.append(DocxTag(info.filename, text, parse_tag(text)))
                    except TagSyntaxError as exc:
                        found.append(DocxTag(info.filename, text, None, str(exc)))
    except (zipfile.BadZipFile, ElementTree.ParseError, KeyError, OSError) as exc:
        raise ImportRefused("not_docx", "The file is not a readable Word document.") from exc
    except ValueError as exc:  # defusedxml's refusals (entities, DTDs) are ValueErrors
        raise ImportRefused("not_docx", "The Word document's XML is refused.") from exc
    return found


def _key(text: str) -> str:
    # A tag wrapped onto the next line on the PDF reads with a space where the line broke.
    return re.sub(r"\s+", "", text)


def missing_on_pdf(tags: Sequence[DocxTag], found: Sequence[FoundTag]) -> list[DocxTag]:
    """The tags of the Word document not found on its PDF, each as often as it is missing (a
    tag written three times and shown twice is missing once)."""
    shown = Counter(_key(item.text) for item in found)
    missing = []
    for tag in tags:
        if shown[_key(tag.text)] > 0:
            shown[_key(tag.text)] -= 1
        else:
            missing.append(tag)
    return missing
