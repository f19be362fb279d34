"""HTML mode: the caller's parsed document adjusted in place before WeasyPrint styles it.

- the caller's stylesheet goes in after the document's own (an author stylesheet), with a margin
  box's ``content`` that combines ``element()`` with other values dropped as the spec wants
  (`generate.engine.paged_css`); XHTML's CDATA markers are taken out of style sheets;
- fillable fields only for named controls of a valid type inside a ``form``: the others are
  marked to be drawn only (buttons are never made fields: WeasyPrint 70 writes a broken field
  list for a submit button);
- ``-fs-table-paginate: none`` (Flying Saucer's switch) stops header/footer repetition.

``FORCED_HTML_CSS`` is the user stylesheet that makes those marks take effect.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import cssselect2
import tinycss2

from generate.engine.paged_css import drop_combined_element_content

STATIC_ATTRIBUTE = "data-docgen-static"
NO_REPEAT_ATTRIBUTE = "data-docgen-no-repeat"
# Controls that stay drawn but are not made PDF fields, and table sections that do not repeat.
# User origin + !important outranks every rule of the document.
FORCED_HTML_CSS = f"""
[{STATIC_ATTRIBUTE}] {{ appearance: none !important; }}
[{STATIC_ATTRIBUTE}]::before, select[{STATIC_ATTRIBUTE}] option {{
  visibility: visible !important;
}}
textarea[{STATIC_ATTRIBUTE}] {{ text-indent: 0 !important; }}
table[{NO_REPEAT_ATTRIBUTE}] > thead, table[{NO_REPEAT_ATTRIBUTE}] > tfoot {{
  display: table-row-group !important;
}}
"""
# Input types that become fillable fields (others, and buttons of any kind, are only drawn).
FIELD_INPUT_TYPES = frozenset(
    {
        "text",
        "password",
        "email",
        "number",
        "tel",
        "url",
        "search",
        "date",
        "time",
        "datetime-local",
        "month",
        "week",
        "checkbox",
        "radio",
        "file",
    }
)
_CONTROL_TAGS = ("input", "select", "textarea", "button")
_PAGINATE_PROPERTY = "-fs-table-paginate"
# At-rules whose blocks hold ordinary style rules (or, nested, declarations).
_GROUPING_RULES = ("media", "supports", "layer", "container", "scope")
_CDATA = re.compile(r"^\s*<!\[CDATA\[|\]\]>\s*$")


def prepare_html(root: ET.Element, author_css: str) -> None:
    """Adjust the caller's parsed document in place, before WeasyPrint styles it."""
    for style in root.iter("style"):
        # XHTML wraps style sheets in CDATA sections; parsed as HTML the markers would stay in
        # the CSS and swallow every rule after them.
        if style.text and "<![CDATA[" in style.text:
            style.text = _CDATA.sub("", style.text)
        if style.text:
            style.text = drop_combined_element_content(style.text)
    head = root.find("head")
    author_css = drop_combined_element_content(author_css)
    if author_css:
        if head is None:  # the HTML parser always makes one; a guard, not a code path
            head = ET.Element("head")
            root.insert(0, head)
        ET.SubElement(head, "style").text = author_css
    _mark_static_controls(root)
    if _PAGINATE_PROPERTY in author_css.lower() or _mentions_paginate(root):
        _stop_table_repetition(root, author_css)


def _mark_static_controls(root: ET.Element) -> None:
    """Mark the controls that must not become PDF fields (drawn only).

    A field needs a ``form`` ancestor, a non-empty name, and for inputs a valid field type
    (a missing type means text, as in HTML). Buttons of every kind are drawn only.
    """
    in_form = {id(element) for form in root.iter("form") for element in form.iter()}
    for tag in _CONTROL_TAGS:
        for element in root.iter(tag):
            name = (element.get("name") or "").strip()
            field = id(element) in in_form and bool(name) and tag != "button"
            if tag == "input":
                field = field and (element.get("type") or "text").strip().lower() in (
                    FIELD_INPUT_TYPES
                )
            if not field:
                element.set(STATIC_ATTRIBUTE, "")


def _mentions_paginate(root: ET.Element) -> bool:
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        text = element.text if element.tag == "style" else element.get("style")
        if text and _PAGINATE_PROPERTY in text.lower():
            return True
    return False


def _stop_table_repetition(root: ET.Element, author_css: str) -> None:
    """Tables under ``-fs-table-paginate: none`` get their thead/tfoot drawn once.

    The property is looked for in the caller's stylesheet, the document's ``<style>`` elements
    (nested rules and @media blocks included) and ``style`` attributes. Its element and every
    table inside it are marked; the forced stylesheet then makes their header and footer plain
    row groups, and a footer is moved after the body so it still comes last.
    """
    selectors: list[str] = []
    for element in root.iter("style"):
        selectors.extend(_paginate_none_selectors(element.text or ""))
    selectors.extend(_paginate_none_selectors(author_css))

    matched: list[ET.Element] = []
    for element in root.iter():
        if isinstance(element.tag, str) and _declares_paginate_none(element.get("style") or ""):
            matched.append(element)
    if selectors:
        wrapper = cssselect2.ElementWrapper.from_html_root(root)
        for selector in selectors:
            try:
                matched.extend(found.etree_element for found in wrapper.query_all(selector))
            except (cssselect2.SelectorError, ValueError, TypeError):
                continue  # a selector cssselect2 cannot match is one WeasyPrint ignores too

    for element in matched:
        for table in element.iter("table"):
            table.set(NO_REPEAT_ATTRIBUTE, "")
            footers = [child for child in table if child.tag == "tfoot"]
            for footer in footers:
                table.remove(footer)
                table.append(footer)


def _paginate_none_selectors(css: str) -> list[str]:
    if _PAGINATE_PROPERTY not in css.lower():
        return []
    found: list[str] = []
    rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    _collect_selectors(rules, None, found)
    return found


def _collect_selectors(rules: list[Any], parent: str | None, found: list[str]) -> None:
    for rule in rules:
        if rule.type == "qualified-rule":
            selector = _nest(parent, tinycss2.serialize(rule.prelude).strip())
            items = tinycss2.parse_blocks_contents(
                rule.content, skip_comments=True, skip_whitespace=True
            )
            if any(_is_paginate_none(item) for item in items):
                found.append(selector)
            _collect_selectors([i for i in items if i.type != "declaration"], selector, found)
        elif (
            rule.type == "at-rule"
            and rule.content is not None
            and rule.lower_at_keyword in _GROUPING_RULES
        ):
            items = tinycss2.parse_blocks_contents(
                rule.content, skip_comments=True, skip_whitespace=True
            )
            if parent is not None and any(_is_paginate_none(i) for i in items):
                found.append(parent)
            _collect_selectors([i for i in items if i.type != "declaration"], parent, found)


def _nest(parent: str | None, selector: str) -> str:
    """A nested rule's selector, spelt out (``&`` is the parent, else a descendant of it)."""
    if parent is None:
        return selector
    parts = _split_selector_list(selector)
    return ", ".join(
        part.replace("&", f":is({parent})") if "&" in part else f":is({parent}) {part}"
        for part in parts
    )


def _split_selector_list(selector: str) -> list[str]:
    tokens = tinycss2.parse_component_value_list(selector)
    parts: list[list[Any]] = [[]]
    for token in tokens:
        if token.type == "literal" and token.value == ",":
            parts.append([])
        else:
            parts[-1].append(token)
    return [tinycss2.serialize(part).strip() for part in parts if tinycss2.serialize(part).strip()]


def _declares_paginate_none(style: str) -> bool:
    if _PAGINATE_PROPERTY not in style.lower():
        return False
    items = tinycss2.parse_blocks_contents(style, skip_comments=True, skip_whitespace=True)
    return any(_is_paginate_none(item) for item in items)


def _is_paginate_none(item: Any) -> bool:
    if item.type != "declaration" or item.lower_name != _PAGINATE_PROPERTY:
        return False
    values = [token for token in item.value if token.type not in ("whitespace", "comment")]
    return len(values) == 1 and values[0].type == "ident" and values[0].lower_value == "none"
