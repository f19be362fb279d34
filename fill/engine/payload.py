"""The fill request body: options at the root, and ``data`` checked against the template.

Data rules of the spec: unknown keys are ignored; absent or null values leave fields unfilled;
a value for a signer field (signature, initial, signatureDate, signerName: signed in a packet,
never filled) is refused;
every value must have the shape of its field's type; a plain value may be wrapped as
``{value, <style>, readOnly}``; array elements may be wrapped as ``{data, <style>}``; an array
for a non-array field repeats its page once per element; an array of arrays for an array field
repeats the page per outer element and overflows the inner ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.engine.problems import Problem
from core.engine.style import FontCheck, parse_style
from core.engine.template_spec import FieldSpec, Style, TemplateSpec
from core.engine.wire_models import validate
from fill.engine import request_model as wire
from fill.engine.errors import FillInvalid, FillLimitExceeded
from fill.engine.values import normalize_value


@dataclass(frozen=True)
class FillOptions:
    title: str | None = None
    style: Style = Style()
    use_interactive_fields: bool = False
    default_read_only: bool = False


@dataclass(frozen=True)
class FillRequest:
    """A parsed request: one raw data object per document (more than one: whole-PDF repeat)."""

    documents: tuple[Mapping[str, Any], ...]
    options: FillOptions
    # Where each document's data sits in the request, for error paths ("data" or "data.3").
    paths: tuple[str, ...]
    # ``data`` was an array (even of one object): each document is a repeat loop of its own.
    whole_pdf_repeat: bool = False


@dataclass(frozen=True)
class Entry:
    """One value for one key, normalized for its type, with the payload's own style for it."""

    value: Any
    style: Style = Style()
    read_only: bool | None = None


@dataclass(frozen=True)
class Repeat:
    """An array sent to a non-array field: one page per element (None leaves it unfilled)."""

    entries: tuple[Entry | None, ...]


@dataclass(frozen=True)
class Rows:
    """An array field's value for one page set; ``style`` is the array-level payload style."""

    entries: tuple[Entry | None, ...]
    style: Style = Style()
    read_only: bool | None = None


@dataclass(frozen=True)
class RepeatedRows:
    """An array of arrays for an array field: the page repeats per group, each overflowing."""

    groups: tuple[Rows, ...]


Value = Entry | Repeat | Rows | RepeatedRows


def _bool(raw: Mapping[str, Any], key: str, path: str, problems: list[Problem]) -> bool | None:
    value = raw.get(key)
    if value is None or isinstance(value, bool):
        return value
    problems.append(Problem(f"{path}{key}", "Must be true or false."))
    return None


def parse_fill_request(body: Any, *, max_documents: int) -> FillRequest:
    """Check the root of the body (fill.engine.request_model declares it); ``data`` must
    already be decrypted if it was a string."""
    if not isinstance(body, Mapping):
        raise FillInvalid.single("", "The body must be a JSON object.")
    data = body.get("data")
    if isinstance(data, list) and len(data) > max_documents:
        raise FillLimitExceeded("data", f"At most {max_documents} documents per request.")
    request, problems = validate(wire.FillRequest, body)
    if request is None:
        raise FillInvalid(problems)
    many = isinstance(request.data, list)
    # An encrypted string was decrypted before: the model's validator returns no string.
    assert not isinstance(request.data, str)
    documents = (
        tuple(d.root for d in request.data)
        if isinstance(request.data, list)
        else (request.data.root,)
    )
    return FillRequest(
        documents=documents,
        options=FillOptions(
            title=request.title,
            style=Style(
                font_family=request.font_family,
                font_size=request.font_size,
                text_color=request.text_color,
                alignment=request.alignment,
                font_weight=request.font_weight,
            ),
            use_interactive_fields=request.use_interactive_fields,
            default_read_only=request.default_read_only,
        ),
        paths=tuple(f"data.{i}" for i in range(len(documents))) if many else ("data",),
        whole_pdf_repeat=many,
    )


class DataResolver:
    """Checks one document's data against the template and normalizes every value."""

    def __init__(
        self,
        spec: TemplateSpec,
        *,
        max_array_length: int,
        font_problem: FontCheck,
    ) -> None:
        self.max_array_length = max_array_length
        self.font_problem = font_problem
        members = {fid for array in spec.arrays for fid in array.field_ids}
        self.loose: dict[str, list[FieldSpec]] = {}
        # Aliases of signer fields: a signer fills them in a packet; fill data may not.
        self.signed: set[str] = set()
        for field in spec.fields:
            if field.is_signer:
                self.signed.add(field.alias)
            elif field.id not in members:
                self.loose.setdefault(field.alias, []).append(field)
        by_id = {field.id: field for field in spec.fields}
        self.arrays = {array.alias: by_id[array.field_ids[0]] for array in spec.arrays}

    def resolve(self, data: Mapping[str, Any], base: str) -> dict[str, Value]:
        problems: list[Problem] = []
        values: dict[str, Value] = {}
        for key, raw in data.items():
            if raw is None:
                continue  # absent, null or undefined: left unfilled
            path = f"{base}.{key}"
            if key in self.arrays:
                value = self._array(self.arrays[key], raw, path, problems)
            elif key in self.loose:
                value = self._loose(self.loose[key], raw, path, problems)
            elif key in self.signed:
                problems.append(
                    Problem(path, "A signer field: it is signed in a packet, not filled.")
                )
                continue
            else:
                continue  # a key with no matching field is ignored
            if value is not None:
                values[key] = value
        if problems:
            raise FillInvalid(problems)
        return values

    # --- loose fields ---------------------------------------------------------------------------
    def _loose(
        self, fields: list[FieldSpec], raw: Any, path: str, problems: list[Problem]
    ) -> Value | None:
        style, read_only, inner = self._unwrap(raw, path, problems)
        if inner is None:
            return None
        if isinstance(inner, list) and not self._list_is_a_value(fields, inner):
            if len(inner) > self.max_array_length:
                raise FillLimitExceeded(
                    path, f"At most {self.max_array_length} elements per array."
                )
            entries = []
            for index, element in enumerate(inner):
                entry = self._element(fields, element, f"{path}.{index}", problems)
                if entry is not None and (style != Style() or read_only is not None):
                    entry = Entry(
                        entry.value, entry.style.over(style), _first(entry.read_only, read_only)
                    )
                entries.append(entry)
            return Repeat(tuple(entries))
        value = self._value(fields, inner, path, problems)
        return None if value is _INVALID else Entry(value, style, read_only)

    @staticmethod
    def _list_is_a_value(fields: list[FieldSpec], items: list[Any]) -> bool:
        # A textWrap field takes an array of strings as its value; any other array repeats pages.
        return all(f.type == "textWrap" for f in fields) and all(isinstance(i, str) for i in items)

    # --- array fields ---------------------------------------------------------------------------
    def _array(
        self, field: FieldSpec, raw: Any, path: str, problems: list[Problem]
    ) -> Value | None:
        style, read_only, inner = self._unwrap(raw, path, problems)
        if inner is None:
            return None
        if not isinstance(inner, list):
            problems.append(Problem(path, "Must be an array: this is an array field."))
            return None
        if inner and all(isinstance(group, list) for group in inner):
            if len(inner) > self.max_array_length:
                raise FillLimitExceeded(
                    path, f"At most {self.max_array_length} elements per array."
                )
            groups = tuple(
                Rows(self._rows(field, group, f"{path}.{i}", problems), style, read_only)
                for i, group in enumerate(inner)
            )
            return RepeatedRows(groups)
        if any(isinstance(element, list) for element in inner):
            problems.append(
                Problem(path, "Use an array of values or an array of arrays, not both.")
            )
            return None
        return Rows(self._rows(field, inner, path, problems), style, read_only)

    def _rows(
        self, field: FieldSpec, items: list[Any], path: str, problems: list[Problem]
    ) -> tuple[Entry | None, ...]:
        if len(items) > self.max_array_length:
            raise FillLimitExceeded(path, f"At most {self.max_array_length} elements per array.")
        return tuple(
            self._element([field], item, f"{path}.{i}", problems) for i, item in enumerate(items)
        )

    # --- shared ---------------------------------------------------------------------------------
    def _element(
        self, fields: list[FieldSpec], raw: Any, path: str, problems: list[Problem]
    ) -> Entry | None:
        """An array element: a plain value or ``{data, <style>, readOnly}``."""
        if raw is None:
            return None
        style, read_only = Style(), None
        if isinstance(raw, Mapping) and "data" in raw:
            style = self._style(raw, path, problems)
            read_only = _bool(raw, "readOnly", f"{path}.", problems)
            raw = raw["data"]
            if raw is None:
                return None
        value = self._value(fields, raw, path, problems)
        return None if value is _INVALID else Entry(value, style, read_only)

    def _unwrap(
        self, raw: Any, path: str, problems: list[Problem]
    ) -> tuple[Style, bool | None, Any]:
        """``{value, <style>, readOnly}`` -> (style, readOnly, value); plain values pass through."""
        if isinstance(raw, Mapping) and "value" in raw:
            return (
                self._style(raw, path, problems),
                _bool(raw, "readOnly", f"{path}.", problems),
                raw["value"],
            )
        return Style(), None, raw

    def _style(self, raw: Mapping[str, Any], path: str, problems: list[Problem]) -> Style:
        return parse_style(raw, f"{path}.", problems, font_problem=self.font_problem)

    @staticmethod
    def _value(fields: list[FieldSpec], raw: Any, path: str, problems: list[Problem]) -> Any:
        """The value normalized for the fields' type; every type sharing the key must accept it.

        An empty string is accepted for every type: the field is shown empty (and, with
        interactive fields on, as an empty interactive field).
        """
        if raw == "":
            return EMPTY
        try:
            normalized = [normalize_value(field, raw) for field in _one_per_type(fields)]
            radio_ids = {o.id for f in fields if f.type == "radioGroup" for o in f.options}
            if radio_ids and raw not in radio_ids:
                allowed = ", ".join(sorted(radio_ids)[:20])
                raise ValueError(f"Must be the id of one of the options: {allowed}.")
        except ValueError as error:
            problems.append(Problem(path, str(error)))
            return _INVALID
        return normalized[0]


_INVALID = object()


class _Empty:
    def __repr__(self) -> str:
        return "EMPTY"


EMPTY = _Empty()


def _one_per_type(fields: list[FieldSpec]) -> list[FieldSpec]:
    """Fields sharing a key may differ in type: each distinct type must accept the value."""
    return list({field.type: field for field in reversed(fields)}.values())


def _first(*values: bool | None) -> bool | None:
    return next((v for v in values if v is not None), None)


def resolve_documents(
    spec: TemplateSpec, request: FillRequest, *, max_array_length: int, font_problem: FontCheck
) -> list[dict[str, Value]]:
    """Every document of ``request`` checked against ``spec`` and normalized (DataResolver),
    in order; FillInvalid for the first document with problems."""
    resolver = DataResolver(spec, max_array_length=max_array_length, font_problem=font_problem)
    return [
        resolver.resolve(data, path)
        for data, path in zip(request.documents, request.paths, strict=True)
    ]
