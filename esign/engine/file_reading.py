"""How a file of createEtchPacket is read with esign.engine.file_model: the rules that span its
keys (an id, one source, a field id unique in its file), today's order of its problems
(`PROBLEM_ORDER`) and what a refused key leaves for the packet's later checks (`read_file`).

What needs the service is the parser's (esign.packets.file_inputs): the upload, and a field's
``value``, which `read_file` reads with the ``read_value`` it is given, in its place among the
problems."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError

from core.engine.problems import Problem
from core.engine.template_spec import Rect
from core.engine.wire_models import validate
from esign.engine.file_model import (
    SOURCES,
    FieldRect,
    FileModel,
    PageIndex,
    SignFieldModel,
    is_block,
    page_of,
)
from esign.engine.signer_model import stripped

# A field's ``value`` read as the sender's (esign.packets.updates.prefilled_value): the field
# object, its type as sent, its path, the problems to add to; the value, or None.
ValueReader = Callable[[Mapping[str, Any], Any, str, list[Problem]], Any]

# Where each problem of a file comes, in today's order: its keys', then (the parser's) the
# uploaded file's name, then the rule on its source ("source") and the source's own problems.
PROBLEM_ORDER = ("id", "fields", "title", "filename")
# The keys whose text is kept as sent when it is refused (a line break in a title is a
# problem, and the file is still read, as before).
AS_SENT = ("title", "filename")

_RECT: TypeAdapter[Rect] = TypeAdapter(FieldRect)
# As the model reads it: no coercion ("3" is no page).
_PAGE: TypeAdapter[int] = TypeAdapter(PageIndex, config=ConfigDict(strict=True))


@dataclass(frozen=True)
class ReadField:
    """A signer field of a file, as read (its type as sent when the type was refused)."""

    id: str
    type: str
    page: int
    rect: Rect
    value: Any


@dataclass(frozen=True)
class FileRead:
    """A file as read: each key's value by field name (a refused key keeps its default, or its
    text as sent), its fields and Markdown blocks, the sources it names, and its problems by
    slot (`PROBLEM_ORDER`, then "source", "castEid" and "markup")."""

    values: dict[str, Any]
    fields: tuple[ReadField, ...]
    blocks: tuple[Mapping[str, Any], ...]
    sources: tuple[str, ...]
    problems: dict[str, list[Problem]]


def _valid(adapter: TypeAdapter[Any], value: object) -> Any:
    try:
        return adapter.validate_python(value)
    except ValidationError:
        return None


def read_fields(
    raw: Sequence[Any], path: str, read_value: ValueReader
) -> tuple[tuple[ReadField, ...], list[Problem]]:
    """A file's ``fields`` (``path`` is ``files.N.fields``): each field checked against
    `SignFieldModel`, a Markdown block skipped. A field refused for its id, type or page is
    kept (its id and type as sent, page 0) so that the signers naming it are not refused too;
    one whose rect is refused is not, as before."""
    fields: list[ReadField] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        where = f"{path}.{index}"
        if is_block(item):
            continue
        model, found = validate(SignFieldModel, item, prefix=where)
        if not isinstance(item, Mapping):
            problems += found
            continue
        field_id = stripped(item.get("id"))
        if field_id and field_id in seen:
            problems.append(Problem(f"{where}.id", f"Duplicate field id {field_id!r}."))
        seen.add(field_id)
        problems += found
        kind: Any
        if model is not None:
            rect, page, kind = model.rect, model.page_num, model.type
        else:
            rect = _valid(_RECT, item.get("rect"))
            if rect is None:
                continue
            page, kind = _valid(_PAGE, page_of(item)), item.get("type")
        value = read_value(item, kind, where, problems)
        fields.append(ReadField(field_id, str(kind), page or 0, rect, value))
    return tuple(fields), problems


def _values(raw: Mapping[str, Any], path: str) -> tuple[dict[str, Any], list[Problem]]:
    """``raw`` checked against `FileModel`: each key's value (a key refused keeps its default,
    or its text as sent) and its problems, in the model's order."""
    model, problems = validate(FileModel, raw, prefix=path)
    if model is not None:
        return dict(model), []
    values = dict(FileModel.model_construct())
    for name, field in FileModel.model_fields.items():
        key = str(field.alias)
        if raw.get(key) is None:
            continue
        one, _ = validate(FileModel, {key: raw[key]})
        if one is not None:
            values[name] = getattr(one, name)
        elif key in AS_SENT:
            values[name] = stripped(raw[key])
    return values, problems


def read_file(raw: Mapping[str, Any], path: str, read_value: ValueReader) -> FileRead:
    """The file ``raw`` (at ``path``, ``files.N``) checked against `FileModel`, its fields
    against `SignFieldModel` and the rules that span its keys."""
    values, problems = _values(raw, path)
    found: dict[str, list[Problem]] = {}
    for problem in problems:
        found.setdefault(problem.path.removeprefix(f"{path}.").split(".")[0], []).append(problem)
    if not values["id"]:
        found.setdefault("id", []).append(Problem(f"{path}.id", "Required"))
    entries: list[Any] = raw["fields"] if isinstance(raw.get("fields"), list) else []
    fields, field_problems = read_fields(entries, f"{path}.fields", read_value)
    found.setdefault("fields", []).extend(field_problems)
    present = {
        "castEid": raw.get("castEid") is not None,
        "file": raw.get("file") is not None or raw.get("base64File") is not None,
        "markup": raw.get("markup") is not None,
    }
    sources = tuple(name for name in SOURCES if present[name])
    # Without another source, the entries with no type are the Markdown blocks that make the
    # document (a field lacking its type among them is refused for that already).
    blocks = tuple(item for item in entries if isinstance(item, Mapping) and "type" not in item)
    if len(sources) > 1:
        found["source"] = [Problem(path, f"Give one source, not {' and '.join(sources)}.")]
    elif not sources and not blocks:
        found["source"] = [
            Problem(path, "Needs a source: castEid, file (a PDF), markup or Markdown blocks.")
        ]
    return FileRead(values, fields, blocks, sources, found)
