"""Which long documents go in parts (`generate.engine.parts`): long enough, with a table or
forced page breaks to cut at, and none of the features a part cannot reproduce. Read from the
document's HTML and CSS text alone, before anything is laid out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import tinycss2

from generate.engine.job import RenderJob


@dataclass(frozen=True)
class PartSettings:
    min_bytes: int = 100_000  # HTML shorter than this renders in one piece
    part_pages: int = 120  # at most about this many pages in one part (a worker's memory)
    probe_rows: int = 120  # table rows the probe lays out to learn the page breaks


# -- which documents ------------------------------------------------------------------------------

_ONE_PIECE = (
    (re.compile(r"float\s*:\s*footnote", re.I), "footnotes"),
    (re.compile(r"target-(counters?|text)\s*\(", re.I), "target-counter() or target-text()"),
    (re.compile(r"""href\s*=\s*["']?#""", re.I), "links inside the document"),
    (re.compile(r"position\s*:\s*fixed", re.I), "position: fixed"),
    (
        re.compile(r"break-(before|after)\s*:\s*(left|right|recto|verso)", re.I),
        "a break to a left or right page",
    ),
    (re.compile(r"counter-(reset|set)\s*:[^;}]*\bpage\b", re.I), "a reset of the page counter"),
    (re.compile(r"\d(vw|vh|vmin|vmax)\b", re.I), "viewport units"),
)
_FORM_FIELDS = re.compile(r"<(input|select|textarea|button)\b", re.I)
_STYLE_ELEMENTS = re.compile(r"<style[^>]*>(.*?)</style", re.I | re.S)
CHAIN = re.compile(r"counter-(reset|increment|set)|running\s*\(|\bquotes\s*:|<q\b", re.I)
_SIDE_PAGES = re.compile(r":(left|right|recto|verso)\b", re.I)
_OTHER_PAGES = re.compile(r":(blank|nth)\b", re.I)


def one_piece_reason(job: RenderJob, settings: PartSettings) -> str | None:
    """Why ``job`` renders in one piece (for the logs), or None when it may go in parts."""
    if len(job.html) < settings.min_bytes:
        return "short"
    if "<table" not in job.html.lower() and not cuts_at_breaks(job):
        return "no table or page break"
    text = "\n".join((job.html, job.author_css, job.user_css))
    for pattern, reason in _ONE_PIECE:
        if pattern.search(text):
            return reason
    if job.html_mode and _FORM_FIELDS.search(job.html):
        return "form fields"
    sheets = _sheets(job)
    if any(_page_rules_differ(sheet) for sheet in sheets):
        return "left/right, blank or nth pages laid out differently"
    if any(_HAS.search(sheet) for sheet in sheets):
        return "selectors with :has()"
    if _LINKED_SHEET.search(job.html) or any(_IMPORT.search(sheet) for sheet in sheets):
        # Their rules are fetched as the document renders: not checked by the rules above.
        return "linked or imported stylesheets"
    if _RUNNING.search(text) and keeps_siblings(job):
        return "running elements and selectors that depend on an element's siblings"
    return None


_FORCED_BREAK = re.compile(r"break-(before|after)\s*:\s*(page|always)\b", re.I)
_NAMED_PAGE = re.compile(r"(?<![\w@-])page\s*:", re.I)


def cuts_at_breaks(job: RenderJob) -> bool:
    """Whether ``job`` may be cut at its forced page breaks (`BreakLayout`): it has some, and
    no named pages (page groups), whose layout depends on the pages before a part, which it
    learns only once every part is laid out. (Left and right pages differ in their margin
    boxes only, or the document is in one piece: the sides are set before those are drawn.)"""
    text = "\n".join((job.html, job.author_css, job.user_css))
    return bool(_FORCED_BREAK.search(text)) and not _NAMED_PAGE.search(text)


def keeps_siblings(job: RenderJob) -> bool:
    """Whether ``job``'s parts keep the rows and elements outside them as stand-ins
    (`PartJob.keep_siblings`): its selectors depend on siblings (`_sibling_selectors`). Other
    documents' parts drop them, which styles and builds a part faster."""
    return any(_sibling_selectors(sheet) for sheet in _sheets(job))


def _sheets(job: RenderJob) -> list[str]:
    return [job.author_css, job.user_css, *_STYLE_ELEMENTS.findall(job.html)]


_HAS = re.compile(r":has\(", re.I)
_LINKED_SHEET = re.compile(r"<link\b[^>]*\bstylesheet\b", re.I)
_IMPORT = re.compile(r"@import\b", re.I)
_RUNNING = re.compile(r"running\s*\(", re.I)


_STRUCTURAL = re.compile(
    r":(first|last|only)-(child|of-type)\b|:nth-(last-)?(child|of-type)\(", re.I
)
_COMBINATOR = re.compile(r"\s*([>+~])\s*|\s+")
_TYPE = re.compile(r"[a-z][\w-]*", re.I)
_SIBLING_INSIDE = re.compile(r":(not|is|where|has|matches)\([^)]*(\+|~(?!=))", re.I)


def _sibling_selectors(css: str) -> bool:
    """Whether a selector depends on an element's siblings or its position among them
    (``:nth-child()``, ``:first-child``..., ``+``, ``~``), other than a table cell's: a part
    lacks the rows before its own (and what precedes or follows the table), so
    ``tr:nth-child(even)`` or ``h2 + table`` would match other elements in it than in one
    piece, unless they stay as stand-ins (`keeps_siblings`). Cells are never cut from their
    rows: ``td:first-child`` and ``td + td`` need none."""
    if not any(mark in css for mark in (":", "+", "~")):
        return False
    for prelude in _selector_preludes(
        tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    ):
        # Brackets and parentheses blanked (same length): their "+", "~" and commas are not
        # combinators; the structural pseudo-classes are looked for in the original text.
        blank, depth = [], 0
        for char in prelude:
            if char in "([":
                depth += 1
            elif char in ")]":
                depth = max(0, depth - 1)
                blank.append(char)
                continue
            blank.append("x" if depth and char not in "([" else char)
        blanked = "".join(blank)
        start = 0
        for selector in blanked.split(","):
            end = start + len(selector)
            if _sibling_selector(prelude[start:end], selector):
                return True
            start = end + 1
    return False


def _sibling_selector(original: str, blanked: str) -> bool:
    """Whether one selector depends on siblings other than a table cell's. A compound is a
    cell's when it is ``td`` or ``th``, a child of ``tr`` (``tr > *``), or a sibling of a
    cell's (``td + *``)."""
    position, combinator = 0, ""
    text = blanked.strip()
    offset = len(blanked) - len(blanked.lstrip())
    before = ""  # the previous compound's element type
    cell = False  # the previous compound is a cell's
    for match in [*_COMBINATOR.finditer(text), None]:
        end = match.start() if match is not None else len(text)
        compound = original[offset + position : offset + end]
        found = _TYPE.match(compound)
        kind = found.group(0).lower() if found is not None else ""
        cell = (
            kind in ("td", "th")
            or (combinator == ">" and before == "tr")
            or (combinator in ("+", "~") and cell)
        )
        before = kind
        if not cell and (
            combinator in ("+", "~")
            or _STRUCTURAL.search(compound)
            or _SIBLING_INSIDE.search(compound)
        ):
            return True
        if match is not None:
            position, combinator = match.end(), (match.group(1) or " ")
    return False


def _selector_preludes(rules: list[Any]) -> list[str]:
    """The selectors of ``rules``' style rules, those inside ``@media`` and ``@supports``."""
    found: list[str] = []
    for rule in rules:
        if rule.type == "qualified-rule":
            found.append(tinycss2.serialize(rule.prelude))
        elif (
            rule.type == "at-rule"
            and rule.lower_at_keyword in ("media", "supports")
            and rule.content is not None
        ):
            rules_inside = tinycss2.parse_rule_list(
                rule.content, skip_comments=True, skip_whitespace=True
            )
            found.extend(_selector_preludes(rules_inside))
    return found


def _page_rules_differ(css: str) -> bool:
    """Whether an ``@page`` rule for left/right/blank/nth pages sets more than margin boxes (a
    part laid out as a right page must be right for a left one: only margin boxes are drawn
    once the part knows where it starts)."""
    if "@page" not in css.lower():
        return False
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type != "at-rule" or rule.lower_at_keyword not in ("page", "media"):
            continue
        if rule.lower_at_keyword == "media":
            if rule.content is not None and _page_rules_differ(tinycss2.serialize(rule.content)):
                return True
            continue
        prelude = tinycss2.serialize(rule.prelude)
        if _OTHER_PAGES.search(prelude):
            return True
        if _SIDE_PAGES.search(prelude) and rule.content is not None:
            items = tinycss2.parse_blocks_contents(
                rule.content, skip_comments=True, skip_whitespace=True
            )
            if any(item.type == "declaration" for item in items):
                return True
    return False


def carries_state(job: RenderJob) -> bool:
    """Whether the document's counters, quotes or running elements carry from one part to the
    next (`PartStart`): each part then waits for the box tree of the part before it."""
    return bool(CHAIN.search("\n".join((job.html, job.author_css, job.user_css))))
