"""The grammar of text tags: ``{{...}}`` written in a document where a field goes.

One grammar that reads both peers' tags (docs/text-tags.md has the whole of it):

- DocuSeal's: ``{{Name;type=date;role=Tenant;required=false}}`` -- a name, then ``key=value``
  attributes, separated by ``;``. The name may be left out (``{{type=checkbox}}``). Our own
  ``signer=N`` (the Nth signer) sits beside ``role=``.
- Documenso's: ``{{signature, r1}}``, ``{{text, r2, required=true, label=Company}}`` -- a type,
  then the recipient ``rN``, then ``key=value`` options, separated by ``,``.

A tag is Documenso's when it has a comma, no semicolon, and its first item is a type word;
every other tag is DocuSeal's (``{{Smith, John}}`` is a text field of that name). The two clash
on one word only: Documenso's ``date`` is the date of signing (``signatureDate``), DocuSeal's a
date the signer enters (``date``; its date of signing is ``datenow``); each keeps its own.

A DocuSeal tag without ``type=`` is a text field, unless its name is itself a type word:
``{{Signature;role=Tenant}}`` is a signature, ``{{Initials}}`` initials, ``{{Date}}`` a date.

Pure Python.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.engine.field_types import TEMPLATE_TYPES

# The peers' type words and ours -> the service's field types (lower case, no spaces or "_").
_TYPE_WORDS: dict[str, str] = {
    "text": "shortText",
    "textarea": "longText",
    "signature": "signature",
    "sign": "signature",
    "initials": "initial",
    "initial": "initial",
    "datenow": "signatureDate",
    "datesigned": "signatureDate",
    "checkbox": "checkbox",
    "check": "checkbox",
    "number": "number",
    "email": "email",
    "phone": "phone",
    "image": "imageFile",
    "name": "signerName",
}
# Every type of the service by its own name, but those a tag's box cannot hold: a radio group
# (one box per option), character boxes and wrapped lines (boxes and lines of their own).
_TYPE_WORDS.update(
    {
        name.lower(): name
        for name in TEMPLATE_TYPES
        if name not in ("radioGroup", "charList", "textWrap")
    }
)
# What the two dialects read differently.
_DOCUSEAL_ONLY = {"date": "date", "name": "shortText"}
_DOCUMENSO_ONLY = {"date": "signatureDate", "name": "signerName"}
# Types the peers have and the service does not (a tag of one is listed as a problem).
_UNSUPPORTED = {
    "select", "dropdown", "multiple", "radio", "file", "payment", "stamp", "cells",
    "verification", "kba", "strikethrough", "heading",
}  # fmt: skip
# Attributes the peers define for looks or logic the service's fields have no place for: read
# and ignored, so a peer's document is taken as it is.
_IGNORED = {
    "condition", "font", "color", "bgcolor", "align", "valign", "mask", "description",
    "title", "textalign", "placeholder", "minvalue", "maxvalue", "numberformat", "format",
    "lineheight", "characterlimit", "validation", "values", "direction", "fieldmeta",
    "preferences", "price", "currency", "length", "letterspacing",
}  # fmt: skip
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}
_RECIPIENT = re.compile(r"r(\d{1,3})", re.IGNORECASE)
MAX_NAME_LENGTH = 100


class TagSyntaxError(ValueError):
    """A tag that does not read: the message says why (the tag's text and page are the
    caller's)."""


@dataclass(frozen=True)
class Tag:
    """What one tag asks for."""

    name: str  # as written ("" when the tag names none)
    type: str  # a template field type (core.engine.field_types)
    dialect: str  # "docuseal" or "documenso"
    role: str = ""  # DocuSeal's role=
    signer: int | None = None  # signer=N, Documenso's rN: the Nth signer, from 1
    required: bool = True
    read_only: bool = False
    default: str = ""
    label: str = ""
    width: float | None = None  # points; else the tag's own width
    height: float | None = None
    font_size: float | None = None


def _key(word: str) -> str:
    return re.sub(r"[\s_-]+", "", word).lower()


def _type(word: str, dialect: str) -> str:
    key = _key(word)
    if key in _UNSUPPORTED:
        raise TagSyntaxError(f'Fields of type "{word}" cannot be placed by a tag.')
    found = (_DOCUMENSO_ONLY if dialect == "documenso" else _DOCUSEAL_ONLY).get(key)
    found = found or _TYPE_WORDS.get(key)
    if found is None:
        raise TagSyntaxError(f'"{word}" is not a field type.')
    return found


def _boolean(key: str, value: str) -> bool:
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise TagSyntaxError(f'{key} must be true or false, not "{value}".')


def _points(key: str, value: str) -> float:
    try:
        number = float(value.removesuffix("pt").strip())
    except ValueError:
        number = 0.0
    if not 0 < number <= 2000:
        raise TagSyntaxError(f'{key} must be a number of points, not "{value}".')
    return number


def _signer(value: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= 100:
        raise TagSyntaxError(f'signer must be a number from 1, not "{value}".')
    return int(value)


def _attributes(pairs: list[tuple[str, str]], fields: dict[str, object]) -> None:
    """Apply ``key=value`` pairs (either dialect's spelling) to ``fields``."""
    seen: set[str] = set()
    for raw_key, value in pairs:
        key = _key(raw_key)
        if key in seen:
            raise TagSyntaxError(f"{raw_key} is given twice.")
        seen.add(key)
        if key == "type":
            fields["type"] = _type(value, str(fields["dialect"]))
        elif key == "name":
            fields["name"] = value
        elif key == "role":
            if not value:
                raise TagSyntaxError("role must name a role.")
            fields["role"] = value
        elif key in ("signer", "recipient"):
            recipient = _RECIPIENT.fullmatch(value)
            fields["signer"] = _signer(recipient.group(1) if recipient else value)
        elif key == "required":
            fields["required"] = _boolean(raw_key, value)
        elif key == "readonly":
            fields["read_only"] = _boolean(raw_key, value)
        elif key in ("default", "defaultvalue", "value"):
            fields["default"] = value
        elif key == "label":
            fields["label"] = value
        elif key in ("width", "height"):
            fields[key] = _points(raw_key, value)
        elif key == "fontsize":
            fields["font_size"] = _points(raw_key, value)
        elif key == "options":
            raise TagSyntaxError("Fields with options cannot be placed by a tag.")
        elif key not in _IGNORED:
            raise TagSyntaxError(f'"{raw_key}" is not an attribute of a tag.')


def _pair(item: str) -> tuple[str, str]:
    key, _, value = item.partition("=")
    if not key.strip():
        raise TagSyntaxError(f'"{item}" has no attribute name before "=".')
    return key.strip(), value.strip()


def _is_documenso(body: str) -> bool:
    if "," not in body or ";" in body:
        return False
    first = _key(body.split(",", 1)[0])
    return first in _TYPE_WORDS or first in _DOCUMENSO_ONLY or first in _UNSUPPORTED


def _documenso(body: str) -> dict[str, object]:
    items = [item.strip() for item in body.split(",")]
    fields: dict[str, object] = {"dialect": "documenso", "name": ""}
    fields["type"] = _type(items[0], "documenso")
    rest = items[1:]
    if rest and (recipient := _RECIPIENT.fullmatch(rest[0])):
        fields["signer"] = _signer(recipient.group(1))
        rest = rest[1:]
    for item in rest:
        if "=" not in item:
            raise TagSyntaxError(f'"{item}" is neither a recipient (r1, r2...) nor key=value.')
    _attributes([_pair(item) for item in rest], fields)
    return fields


def _docuseal(body: str) -> dict[str, object]:
    items = [item.strip() for item in body.split(";")]
    fields: dict[str, object] = {"dialect": "docuseal", "name": ""}
    names = [item for item in items if "=" not in item]
    if len([name for name in names if name]) > 1 or (len(names) == 1 and items[0] != names[0]):
        raise TagSyntaxError("The name comes first, once; then key=value attributes.")
    if any(not item for item in items):
        raise TagSyntaxError('An empty part between ";".')
    fields["name"] = names[0] if names else ""
    _attributes([_pair(item) for item in items if "=" in item], fields)
    if "type" not in fields:
        # An untyped tag named by a type word is that type: {{Signature}}, {{Initials}}.
        key = _key(str(fields["name"]))
        word = _DOCUSEAL_ONLY.get(key) or _TYPE_WORDS.get(key)
        fields["type"] = word if word and key not in ("name", "text") else "shortText"
    return fields


def parse_tag(text: str) -> Tag:
    """The tag ``text`` (with its braces) asks for; raises TagSyntaxError saying what is wrong."""
    if not (text.startswith("{{") and text.endswith("}}")) or len(text) < 4:
        raise TagSyntaxError("A tag is written {{...}}.")
    body = " ".join(text[2:-2].split())
    if "{" in body or "}" in body:
        raise TagSyntaxError("A tag holds no braces of its own: is a }} missing?")
    if not body:
        raise TagSyntaxError("The tag is empty.")
    fields = _documenso(body) if _is_documenso(body) else _docuseal(body)
    if len(str(fields["name"])) > MAX_NAME_LENGTH:
        raise TagSyntaxError(f"A name is at most {MAX_NAME_LENGTH} characters.")
    return Tag(**fields)  # type: ignore[arg-type]  # built from the dataclass's own keys
