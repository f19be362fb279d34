"""Aliases for imported form fields: short camelCase identifiers, unique within the template.

A PDF form names its fields for machines (``topmostSubform[0].Page1[0].f1_1[0]``) and labels
them for people (a tooltip, /TU, or text printed beside the box). The alias of a field is taken
from the first of these that says something:

1. the last part of its name, when the form's author gave it a meaningful one
   (``LegalName``, ``First Name``, ``full_name``), not a generated one (``f1_1``, ``Text3``);
2. its tooltip (/TU): the first phrase that reads as a label, less numbering and notes in
   parentheses ("1. Name (as shown on your income tax return). Name is required..." -> name);
3. the label printed beside its box (``page_text.label_near``);
4. the last meaningful part of its name above the field (``SSN`` in ``...SSN[0].f1_11[0]``);
5. its generated name itself, else ``field<n>``.

A repeated alias gets a number: ``ssn``, ``ssn2``, ``ssn3`` (``text1_2`` after a digit). The
full name stays on the field (``FieldSpec.name``), the human text in its ``label``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

MAX_WORDS = 5
MAX_LENGTH = 60

# Names that forms and form tools generate: f1_1, c1_1, Text3, Check Box 2, RadioButtonGroup,
# topmostSubform, Page1, #subform... They say nothing about the field.
_GENERIC = re.compile(
    r"""^(
        [a-z]{0,3}[\d_]+
      | (text|txt|field|fld|fill|textfield|textbox|edit|check|checkbox|chk|cb|box|radio
         |radiobutton|radiobuttongroup|optionbutton|option|button|btn|group|combo|combobox
         |combolist|combodrop|drop|dropdown|list|listbox|choice|untitled|undefined|unnamed|form
         |page|subform|topmostsubform|pageset|body|sig|signature|area|cell|row|column|item)
        [\d_]*
    )$""",
    re.IGNORECASE | re.VERBOSE,
)
_INDEX = re.compile(r"\[\d+\]")
_PARENTHESES = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_NOTE = "\x1f"  # where a note in parentheses was
_CLAUSE_END = re.compile(r"[.;:?!▶►•]+(?:\s+|$)|\s[-–—]\s")
# "1 ", "1.", "3a)", "Part IV.", "b)": numbering before a label. A lone letter or roman
# numeral needs its "." or ")" ("C Corporation" is a label).
_NUMBERING = re.compile(
    r"^(?:(?:page|part|step|line|section|item|box|question)\s+)?"
    r"(?:\d+[a-z]?(?:[.)]|\s)|(?:[ivx]+|[a-z])[.)])\s*",
    re.IGNORECASE,
)
_ONLY_NUMBERING = re.compile(
    r"^(?:(?:page|part|step|line|section|item|box|question)\s*)?(?:\d+[a-z]?|[ivx]+|[a-z])$",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# Words a label leads with or says in passing that an alias can do without.
_INSTRUCTIONS = {
    "enter", "print", "type", "check", "list", "provide", "write", "fill", "select", "give",
    "sign", "attach", "include", "complete", "choose", "mark", "indicate", "specify", "insert",
}  # fmt: skip
# Words an instruction starts with, where a form says what to do rather than what goes in the
# box ("Add lines 8 and 11", "See instructions", "If zero or less, enter -0-"). "Enter the tax
# classification" still names its box: the instruction words above are dropped from it.
_DIRECTIONS = {
    "add", "subtract", "multiply", "divide", "combine", "see", "if", "do", "otherwise", "go",
    "skip", "read", "use", "figure", "round", "only", "attach", "include", "complete",
}  # fmt: skip
_FILLERS = {"a", "an", "the", "your", "here", "please", "and", "or", "any", "if", "applicable"}


def ascii_words(text: str) -> list[str]:
    """The words of ``text`` in ASCII: accents dropped, apostrophes joined, symbols gone."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"['’`´]", "", text)
    return [word for chunk in re.split(r"[^A-Za-z0-9]+", text) for word in _WORD.findall(chunk)]


def camel_case(words: list[str]) -> str:
    """``["Legal", "NAME", "2"]`` -> legalName2 (words as ``ascii_words`` splits them: each
    all capitals, capitalized, lower case or digits). A leading digit gets ``field`` before it."""
    out = words[0].lower() + "".join(word.capitalize() for word in words[1:])
    if out[:1].isdigit():
        out = "field" + out
    return out[:MAX_LENGTH]


def name_parts(full_name: str) -> list[str]:
    """The parts of a fully qualified field name, without XFA indexes: ``a[0].b[2]`` -> a, b."""
    parts = (_INDEX.sub("", part).strip().lstrip("#") for part in full_name.split("."))
    return [part for part in parts if part]


def is_generic(text: str) -> bool:
    """True for a name or text that a tool generated rather than a person chose."""
    letters = "".join(ascii_words(text))
    return not letters or _GENERIC.match(letters) is not None or len(letters) < 2


def identifier_from_name(part: str) -> str | None:
    """``First Name_2`` -> firstName2, ``OI_Flowering`` -> oiFlowering; None if generic."""
    if is_generic(part):
        return None
    words = ascii_words(part)
    return camel_case(words) if words else None


def label_phrase(text: str, *, last: bool = False) -> str | None:
    """The phrase of a label or tooltip that names the field, for people: numbering and notes in
    parentheses left out; the first phrase (or with ``last``, the one nearest a box it is
    printed left of). None if nothing but numbering or a generated name is left."""
    # A note in parentheses goes; where a capitalized word follows it, a new phrase starts
    # ("Address (number, street, and apt. or suite no.) See instructions.").
    while _PARENTHESES.search(text):
        text = _PARENTHESES.sub(_NOTE, text)
    text = re.sub(f"\\s*{_NOTE}\\s*(?=[A-Z])", ". ", text).replace(_NOTE, " ")
    clauses = []
    for clause in _CLAUSE_END.split(text):
        clause = " ".join(clause.split())
        clause = _NUMBERING.sub("", clause) if not _ONLY_NUMBERING.match(clause) else ""
        if clause and re.search(r"[^\W\d_]", clause) and not is_generic(clause):
            clauses.append(clause)
    # A clause that tells the reader what to do names nothing ("Income after additions. Add
    # lines 8 and 11"): the clause nearest the box (or first) of the others, if any.
    clauses = [clause for clause in clauses if not _is_direction(clause)]
    if not clauses:
        return None
    return clauses[-1] if last else clauses[0]


def _is_direction(clause: str) -> bool:
    words = ascii_words(clause)
    return bool(words) and words[0].lower() in _DIRECTIONS


def identifier_from_phrase(phrase: str) -> str | None:
    """``Business name/disregarded entity name, if different from above`` -> businessName."""
    # A long phrase is cut at its first comma or slash, when what comes before is a name itself.
    for separator in (",", "/"):
        head = phrase.split(separator, 1)[0]
        if separator in phrase and len(ascii_words(head)) >= 2:
            phrase = head
    words = ascii_words(phrase)
    while len(words) > 1 and words[0].lower() in _INSTRUCTIONS:
        words = words[1:]
    kept = [word for word in words if word.lower() not in _FILLERS] or words
    return camel_case(kept[:MAX_WORDS]) if kept else None


def unique_aliases(aliases: Iterable[str]) -> list[str]:
    """Each alias made unique by a number: the first keeps it, then 2, 3... (``_2`` after a
    digit), skipping any alias already taken."""
    given = list(aliases)
    taken: set[str] = set()
    out = []
    for alias in given:
        candidate, number = alias, 1
        while candidate in taken:
            number += 1
            candidate = f"{alias}{'_' if alias[-1:].isdigit() else ''}{number}"
        taken.add(candidate)
        out.append(candidate)
    return out
