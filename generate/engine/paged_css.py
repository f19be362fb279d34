"""Paged-media CSS that WeasyPrint accepts but the spec calls invalid, made to follow the spec.

CSS GCPM (https://www.w3.org/TR/css-gcpm-3/#running-elements): ``element()`` "cannot be
combined with any other values" in ``content``. A declaration such as
``content: element(header) " extra"`` is therefore invalid and ignored, so an earlier valid
``content`` in the same rule applies (the usual CSS fallback idiom). WeasyPrint 70 draws the
combination instead; dropping such declarations from the stylesheet text before WeasyPrint reads
it gives the spec's result. Only margin boxes are looked at: ``element()`` has no meaning
elsewhere.
"""

from __future__ import annotations

import tinycss2
from tinycss2.ast import AtKeywordToken, CurlyBracketsBlock, Node

# The sixteen page-margin boxes (CSS Paged Media 3, section 4.2).
MARGIN_BOXES = frozenset(
    f"{edge}-{place}"
    for edge, places in (
        ("top", ("left-corner", "left", "center", "right", "right-corner")),
        ("bottom", ("left-corner", "left", "center", "right", "right-corner")),
        ("left", ("top", "middle", "bottom")),
        ("right", ("top", "middle", "bottom")),
    )
    for place in places
)
_INSIGNIFICANT = ("whitespace", "comment")


def drop_combined_element_content(css: str) -> str:
    """``css`` without the margin-box ``content`` declarations that combine ``element()`` with
    anything else; the very same text when there is none (most stylesheets)."""
    if "element(" not in css.lower():
        return css
    tokens = tinycss2.parse_component_value_list(css)
    if not _clean_blocks(tokens):
        return css
    return tinycss2.serialize(tokens)


def _clean_blocks(tokens: list[Node]) -> bool:
    """Walk every ``{}`` block (``@page`` may sit in ``@media`` or be nested at any depth);
    filter the declarations of margin-box blocks in place. True if anything was dropped."""
    changed = False
    keyword: str | None = None  # the at-keyword whose prelude is being read, if any
    for token in tokens:
        if isinstance(token, AtKeywordToken):
            keyword = token.lower_value
        elif isinstance(token, CurlyBracketsBlock):
            if keyword in MARGIN_BOXES:
                kept = _without_combined_element(token.content)
                changed |= len(kept) != len(token.content)
                token.content = kept
            changed |= _clean_blocks(token.content)
            keyword = None
        elif token.type == "literal" and token.value == ";":
            keyword = None
    return changed


def _without_combined_element(content: list[Node]) -> list[Node]:
    """A margin box's block content, less each invalid ``content`` declaration and its ``;``."""
    kept: list[Node] = []
    declaration: list[Node] = []
    for token in [*content, None]:  # None: the end of the block ends the last declaration
        if token is not None and not (token.type == "literal" and token.value == ";"):
            declaration.append(token)
            continue
        if not _combines_element(declaration):
            kept.extend(declaration)
            if token is not None:
                kept.append(token)
        declaration = []
    return kept


def _combines_element(tokens: list[Node]) -> bool:
    parsed = tinycss2.parse_one_declaration(tokens, skip_comments=True)
    if parsed.type != "declaration" or parsed.lower_name != "content":
        return False
    values = [value for value in parsed.value if value.type not in _INSIGNIFICANT]
    uses_element = any(
        value.type == "function" and value.lower_name == "element" for value in values
    )
    return uses_element and len(values) > 1
