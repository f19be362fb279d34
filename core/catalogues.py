"""The translation catalogues a deployment serves: each app's locale/<locale>/LC_MESSAGES/django.po
and the django.mo compiled from it, both committed, so that every way of starting the service (a
clone, an archive, an image) speaks every language of settings.LANGUAGES without a compile step.

Django reads only the .mo: a .po edited without recompiling would silently serve the old words
(or English). ``catalogue_problems`` says which shipped catalogue is missing or stale by
comparing what the two files hold, message by message (not their bytes or dates, which differ
between msgfmt versions and checkouts). core.checks runs it at start; the tests run it too.
Pure Python: no Django here.
"""

from __future__ import annotations

import ast
import re
import struct
from collections.abc import Iterable
from pathlib import Path

# What gettext keys a message by: "context\x04msgid", plural forms "msgid\x00plural".
Messages = dict[str, str]

_LINE = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")\s*$')


def _string(literal: str) -> str:
    """A .po string literal ("a\\nb") as text; the escapes are C's, which Python's include."""
    value = ast.literal_eval(literal)
    assert isinstance(value, str)
    return value


def po_entries(text: str) -> list[dict[str, str]]:
    """The entries of a .po file: each a dict of msgctxt, msgid, msgid_plural, msgstr,
    msgstr[0].. (continued lines joined), and "flags" (the ``#,`` comment line, e.g. "fuzzy")."""
    entries: list[dict[str, str]] = []
    current: dict[str, str] = {}
    key = ""
    for line in [*text.splitlines(), ""]:
        if not line.strip():
            if "msgid" in current:
                entries.append(current)
            current, key = {}, ""
        elif line.startswith("#,"):
            current["flags"] = current.get("flags", "") + line[2:]
        elif line.startswith("#"):
            continue
        elif match := _LINE.match(line):
            key = match.group(1)
            current[key] = _string(match.group(2))
        elif line.startswith('"') and key:
            current[key] += _string(line)
    return entries


def _key(entry: dict[str, str]) -> str:
    context = f"{entry['msgctxt']}\x04" if "msgctxt" in entry else ""
    plural = f"\x00{entry['msgid_plural']}" if "msgid_plural" in entry else ""
    return context + entry["msgid"] + plural


def _translation(entry: dict[str, str]) -> str:
    if "msgid_plural" not in entry:
        return entry.get("msgstr", "")
    forms = sorted((key for key in entry if key.startswith("msgstr[")), key=lambda k: int(k[7:-1]))
    return "\x00".join(entry[form] for form in forms)


def po_messages(text: str) -> Messages:
    """What msgfmt compiles from a .po: its translated entries that are not fuzzy (no header)."""
    messages = {}
    for entry in po_entries(text):
        translation = _translation(entry)
        if entry["msgid"] and "fuzzy" not in entry.get("flags", "") and translation.strip("\x00"):
            messages[_key(entry)] = translation
    return messages


def mo_messages(data: bytes) -> Messages:
    """The messages of a compiled .mo file (GNU gettext's format; header left out)."""
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">"
    count, originals, translations = struct.unpack(f"{order}4xIII", data[4:20])
    messages = {}
    for index in range(count):
        length, offset = struct.unpack(f"{order}II", data[originals + 8 * index :][:8])
        key = data[offset : offset + length].decode("utf-8")
        length, offset = struct.unpack(f"{order}II", data[translations + 8 * index :][:8])
        if key:
            messages[key] = data[offset : offset + length].decode("utf-8")
    return messages


def catalogue_problems(locale_dirs: Iterable[Path], locales: Iterable[str]) -> list[str]:
    """What is wrong with the catalogues each of ``locale_dirs`` ships for each of ``locales``
    (e.g. "pt_BR"): a .po missing, its .mo missing, or a .mo that does not hold what its .po says
    (compiled before the .po last changed). Empty when every catalogue is served as written."""
    problems = []
    wanted = list(locales)
    for locale_dir in locale_dirs:
        for locale in wanted:
            po = locale_dir / locale / "LC_MESSAGES" / "django.po"
            mo = po.with_suffix(".mo")
            if not po.is_file():
                problems.append(f"{po} is missing: {locale} has no catalogue here.")
            elif not mo.is_file():
                problems.append(f"{mo} is missing: {po.name} was never compiled.")
            elif (written := po_messages(po.read_text("utf-8"))) != (
                served := mo_messages(mo.read_bytes())
            ):
                differ = sorted(
                    k for k in written.keys() | served.keys() if written.get(k) != served.get(k)
                )
                problems.append(
                    f"{mo} is stale: {len(differ)} message(s) differ from {po.name}, "
                    f"e.g. {differ[0]!r}."
                )
    return problems
