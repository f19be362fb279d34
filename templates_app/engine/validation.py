"""Checks a template's JSON before it is saved or published.

Every problem names the dotted path of what is wrong (``fields.3.rect``), so the admin forms
and the visual editor can point at the field. The checks also guard the fill engine: a spec
that passes here can be turned into dataclasses and filled without further type checks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from core.engine.problems import Problem
from core.engine.style import FontCheck, parse_style
from core.engine.template_spec import (
    PARTS,
    ROTATIONS,
    SIGNER_TYPES,
    TEMPLATE_FIELD_TYPES,
)

# Rects may overhang the MediaBox by this much (points): widgets drawn by hand often do.
RECT_TOLERANCE = 1.0
MAX_FIELDS = 5000


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_style(
    style: Any, path: str, out: list[Problem], font_problem: FontCheck | None = None
) -> None:
    if style is None:
        return
    if not isinstance(style, Mapping):
        out.append(Problem(path, "Must be an object."))
        return
    parse_style(style, f"{path}.", out, font_problem=font_problem, refuse_unknown_keys=True)


def _check_rect(rect: Any, path: str, page: Mapping[str, Any] | None, out: list[Problem]) -> bool:
    if not isinstance(rect, Mapping) or not all(
        _is_number(rect.get(k)) for k in ("x", "y", "width", "height")
    ):
        out.append(Problem(path, "Must be {x, y, width, height} in points."))
        return False
    if rect["width"] <= 0 or rect["height"] <= 0:
        out.append(Problem(path, "Width and height must be positive."))
        return False
    if page is not None:
        x0, y0, x1, y1 = page["mediaBox"]
        t = RECT_TOLERANCE
        if (
            rect["x"] < x0 - t
            or rect["y"] < y0 - t
            or rect["x"] + rect["width"] > x1 + t
            or rect["y"] + rect["height"] > y1 + t
        ):
            out.append(Problem(path, "The box lies outside the page."))
            return False
    return True


def _check_format(field: Mapping[str, Any], path: str, out: list[Problem]) -> None:
    fmt = field.get("format")
    if fmt is None:
        return
    if not isinstance(fmt, Mapping):
        out.append(Problem(f"{path}.format", "Must be an object."))
        return
    kind = field.get("type")
    if kind == "date":
        pattern = fmt.get("pattern")
        if pattern is not None and (not isinstance(pattern, str) or not pattern.strip()):
            out.append(Problem(f"{path}.format.pattern", "Must be a date pattern like MM/DD/YYYY."))
    decimals = fmt.get("decimals")
    if decimals is not None and (not isinstance(decimals, int) or not 0 <= decimals <= 10):
        out.append(Problem(f"{path}.format.decimals", "Must be an integer from 0 to 10."))
    for key in ("thousandsSeparator", "decimalSeparator", "currencySymbol"):
        value = fmt.get(key)
        if value is not None and (not isinstance(value, str) or len(value) > 5):
            out.append(Problem(f"{path}.format.{key}", "Must be a short string."))


def _check_field(
    field: Any,
    path: str,
    pages: list[Mapping[str, Any]],
    out: list[Problem],
    font_problem: FontCheck | None,
) -> None:
    if not isinstance(field, Mapping):
        out.append(Problem(path, "Must be an object."))
        return
    field_id = field.get("id")
    if not isinstance(field_id, str) or not field_id.strip() or len(field_id) > 200:
        out.append(Problem(f"{path}.id", "Required: a non-empty string."))
    alias = field.get("alias")
    if alias is not None and (not isinstance(alias, str) or not alias.strip() or len(alias) > 500):
        out.append(Problem(f"{path}.alias", "Must be a non-empty string."))
    for key in ("label", "name"):
        text = field.get(key)
        if text is not None and (not isinstance(text, str) or len(text) > 2000):
            out.append(Problem(f"{path}.{key}", "Must be a string of at most 2000 characters."))
    kind = field.get("type")
    if kind not in TEMPLATE_FIELD_TYPES:
        out.append(Problem(f"{path}.type", f"Unknown field type {kind!r}."))
        return
    page_index = field.get("page", 0)
    page = None
    if not isinstance(page_index, int) or isinstance(page_index, bool):
        out.append(Problem(f"{path}.page", "Must be a page index (0 is the first page)."))
    elif not 0 <= page_index < len(pages):
        out.append(Problem(f"{path}.page", f"The template has {len(pages)} page(s)."))
    else:
        page = pages[page_index]
    _check_rect(field.get("rect"), f"{path}.rect", page, out)
    check_style(field.get("style"), f"{path}.style", out, font_problem)
    _check_format(field, path, out)
    for flag in ("readOnly", "autoSize"):
        if flag in field and not isinstance(field[flag], bool):
            out.append(Problem(f"{path}.{flag}", "Must be true or false."))
    if field.get("rotation", 0) not in ROTATIONS:
        out.append(Problem(f"{path}.rotation", "Must be 0, 90, 180 or 270."))

    boxes = field.get("boxes")
    # Every type may limit its length; only box fields tie the limit to their box count.
    max_length = field.get("maxLength")
    max_length_valid = max_length is None or (
        isinstance(max_length, int) and not isinstance(max_length, bool) and max_length >= 1
    )
    if not max_length_valid:
        out.append(Problem(f"{path}.maxLength", "Must be a positive integer."))
    if kind in ("charList", "textWrap"):
        if not isinstance(boxes, list) or not boxes:
            out.append(Problem(f"{path}.boxes", f"A {kind} field needs at least one box."))
        else:
            for index, box in enumerate(boxes):
                _check_rect(box, f"{path}.boxes.{index}", page, out)
        if (
            max_length is not None
            and max_length_valid
            and isinstance(boxes, list)
            and len(boxes) != max_length
        ):
            out.append(
                Problem(
                    f"{path}.boxes",
                    f"Box count mismatch: {len(boxes)} boxes for maxLength {max_length}.",
                )
            )
    elif boxes:
        out.append(Problem(f"{path}.boxes", "Only charList and textWrap fields have boxes."))

    options = field.get("options")
    if kind == "radioGroup":
        if not isinstance(options, list) or not options:
            out.append(Problem(f"{path}.options", "A radioGroup needs at least one option."))
        else:
            option_ids = []
            for index, option in enumerate(options):
                option_path = f"{path}.options.{index}"
                if not isinstance(option, Mapping) or not isinstance(option.get("id"), str):
                    out.append(Problem(option_path, "Each option needs an id and a rect."))
                    continue
                option_ids.append(option["id"])
                _check_rect(option.get("rect"), f"{option_path}.rect", page, out)
            for option_id, count in Counter(option_ids).items():
                if count > 1:
                    out.append(Problem(f"{path}.options", f"Duplicate option id {option_id!r}."))
    elif options:
        out.append(Problem(f"{path}.options", "Only radioGroup fields have options."))

    parts = field.get("parts")
    if parts:
        if kind not in PARTS:
            out.append(Problem(f"{path}.parts", "Only fullName, usAddress and phone have parts."))
        elif not isinstance(parts, Mapping):
            out.append(Problem(f"{path}.parts", "Must be an object of part name to rect."))
        else:
            for name, rect in parts.items():
                if name not in PARTS[kind]:
                    allowed = ", ".join(PARTS[kind])
                    out.append(Problem(f"{path}.parts.{name}", f"Unknown part; use {allowed}."))
                else:
                    _check_rect(rect, f"{path}.parts.{name}", page, out)


def _check_pages(pages: Any, out: list[Problem]) -> list[Mapping[str, Any]]:
    if not isinstance(pages, list) or not pages:
        out.append(Problem("pages", "A template needs at least one page."))
        return []
    good = []
    for index, page in enumerate(pages):
        if (
            isinstance(page, Mapping)
            and _is_number(page.get("width"))
            and _is_number(page.get("height"))
            and isinstance(page.get("mediaBox"), list)
            and len(page["mediaBox"]) == 4
        ):
            good.append(page)
        else:
            out.append(Problem(f"pages.{index}", "Needs width, height and mediaBox."))
    return good if len(good) == len(pages) else []


def validate_template_json(data: Any, *, font_problem: FontCheck | None = None) -> list[Problem]:
    """All problems of a template spec in JSON form; an empty list means it is valid.

    With ``font_problem``, font names are checked too (saving does; publishing a version that
    was checked when saved need not)."""
    out: list[Problem] = []
    if not isinstance(data, Mapping):
        return [Problem("", "The template must be an object.")]
    pages = _check_pages(data.get("pages"), out)
    check_style(data.get("style"), "style", out, font_problem)
    fields = data.get("fields", [])
    if not isinstance(fields, list):
        return [*out, Problem("fields", "Must be a list.")]
    if len(fields) > MAX_FIELDS:
        return [*out, Problem("fields", f"A template holds at most {MAX_FIELDS} fields.")]
    for index, field in enumerate(fields):
        _check_field(field, f"fields.{index}", pages, out, font_problem)

    ids = [f.get("id") for f in fields if isinstance(f, Mapping)]
    for field_id, count in Counter(ids).items():
        if count > 1 and isinstance(field_id, str):
            out.append(Problem("fields", f"Duplicate field id {field_id!r}."))
    _check_arrays(data.get("arrays", []), fields, out)
    return out


def _check_arrays(arrays: Any, fields: list[Any], out: list[Problem]) -> None:
    if not isinstance(arrays, list):
        out.append(Problem("arrays", "Must be a list."))
        return
    by_id = {f.get("id"): f for f in fields if isinstance(f, Mapping)}
    member_of: dict[str, str] = {}
    array_ids = []
    for index, array in enumerate(arrays):
        path = f"arrays.{index}"
        if not isinstance(array, Mapping):
            out.append(Problem(path, "Must be an object."))
            continue
        array_id = array.get("id")
        if not isinstance(array_id, str) or not array_id:
            out.append(Problem(f"{path}.id", "Required: a non-empty string."))
        array_ids.append(array_id)
        alias = array.get("alias")
        if alias is not None and (not isinstance(alias, str) or not alias.strip()):
            out.append(Problem(f"{path}.alias", "Must be a non-empty string."))
        field_ids = array.get("fieldIds")
        if not isinstance(field_ids, list) or not field_ids:
            out.append(Problem(f"{path}.fieldIds", "An array needs at least one field."))
            continue
        types, pages = set(), set()
        for field_id in field_ids:
            field = by_id.get(field_id)
            if field is None:
                out.append(Problem(f"{path}.fieldIds", f"No field with id {field_id!r}."))
                continue
            if field_id in member_of:
                out.append(
                    Problem(f"{path}.fieldIds", f"Field {field_id!r} is already in another array.")
                )
            member_of[field_id] = str(array_id)
            if field.get("type") in SIGNER_TYPES:
                out.append(
                    Problem(
                        f"{path}.fieldIds",
                        f"Field {field_id!r} is signed in a packet: only filled fields make "
                        "arrays.",
                    )
                )
            types.add(field.get("type"))
            pages.add(field.get("page", 0))
        if len(types) > 1:
            listed = ", ".join(sorted(str(t) for t in types))
            out.append(Problem(f"{path}.fieldIds", f"Mixed types in one array: {listed}."))
        if len(pages) > 1:
            out.append(Problem(f"{path}.fieldIds", "All fields of an array must be on one page."))
    for array_id, count in Counter(array_ids).items():
        if count > 1 and isinstance(array_id, str):
            out.append(Problem("arrays", f"Duplicate array id {array_id!r}."))
    # An array's alias is a key of the fill data: a loose field with that alias would make the
    # value mean two things.
    loose_aliases = {
        f.get("alias") or f.get("id")
        for f in fields
        if isinstance(f, Mapping) and f.get("id") not in member_of
    }
    for index, array in enumerate(arrays):
        if isinstance(array, Mapping):
            alias = array.get("alias") or array.get("id")
            if alias in loose_aliases:
                out.append(
                    Problem(f"arrays.{index}.alias", f"The alias {alias!r} is used by a field too.")
                )
