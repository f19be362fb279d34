"""Parsing the webform part of a definition: fields, repeating groups, pages and webforms, each
checked, every problem reported by its path (``webforms.0.pages.1.fields.2.key``). The settings
and limits come from workflows.engine.catalogue; workflows.engine.definition parses the rest.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

from core.engine.field_types import FIELD_TYPES, PHONE_REGIONS
from core.engine.input_checks import text_problem
from core.engine.problems import Problem
from workflows.engine.catalogue import (
    GROUP_FIELD_TYPES,
    GROUP_MAX_ENTRIES,
    KEY,
    MAX_FIELDS,
    MAX_GROUPS,
    MAX_PAGES,
    SLUG,
)
from workflows.engine.conditions import (
    ConditionInvalid,
    condition_keys,
    condition_of,
    kept_condition,
    same,
)
from workflows.engine.defs import FieldDef, GroupDef, PageDef, WebformDef
from workflows.engine.rules import EMPTY, FieldInvalid, check_value


def read_text(raw: Mapping[str, Any], key: str, path: str, problems: list[Problem], *, limit: int,
          required: bool = True) -> str:  # fmt: skip
    value = raw.get(key)
    if value is None or value == "":
        if required:
            problems.append(Problem(f"{path}.{key}" if path else key, "Required"))
        return ""
    if not isinstance(value, str):
        problems.append(Problem(f"{path}.{key}" if path else key, "Must be a string."))
        return ""
    if (problem := text_problem(value)) is not None:
        problems.append(Problem(f"{path}.{key}" if path else key, problem))
        return ""
    if len(value) > limit:
        problems.append(Problem(f"{path}.{key}" if path else key, f"At most {limit} characters."))
    return value.strip()[:limit]


def read_list(raw: Any, path: str, problems: list[Problem], limit: int) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.append(Problem(path, "Must be a list."))
        return []
    if len(raw) > limit:
        problems.append(Problem(path, f"At most {limit} entries."))
    return raw[:limit]


def read_objects(
    raw: Any, path: str, problems: list[Problem], limit: int, shape: str
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Each object of the list ``raw`` (``read_list``) with its path; an entry that is not an
    object is a problem ("Must be ``shape``."), and skipped."""
    for index, item in enumerate(read_list(raw, path, problems, limit)):
        at = f"{path}.{index}"
        if isinstance(item, Mapping):
            yield at, item
        else:
            problems.append(Problem(at, f"Must be {shape}."))


def _number(raw: Any, path: str, problems: list[Problem]) -> float | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        problems.append(Problem(path, "Must be a number."))
        return None
    try:
        value = Decimal(str(raw))
    except ArithmeticError:
        problems.append(Problem(path, "Must be a number."))
        return None
    if not value.is_finite() or abs(value) >= Decimal(10) ** 15:
        problems.append(Problem(path, "Must be a finite number below 10^15."))
        return None
    return int(value) if value == value.to_integral_value() else float(value)


def _count(raw: Any, path: str, problems: list[Problem]) -> int | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0 or raw > 100_000:
        problems.append(Problem(path, "Must be a whole number from 0."))
        return None
    return raw


def _key(raw: Any, path: str, problems: list[Problem]) -> str | None:
    """The ``key`` of a field or a repeating group (its name in payloads); None when ``raw`` is
    not an object at all."""
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    key = read_text(raw, "key", path, problems, limit=64)
    if key and not KEY.match(key):
        problems.append(
            Problem(f"{path}.key", "Use a letter, then letters, digits or _ (at most 64).")
        )
    return key


def parse_field(raw: Any, path: str, problems: list[Problem]) -> FieldDef | None:
    before = len(problems)
    key = _key(raw, path, problems)
    if key is None:
        return None
    kind = raw.get("type")
    if kind not in FIELD_TYPES:
        problems.append(Problem(f"{path}.type", f"Must be one of {', '.join(FIELD_TYPES)}."))
    label = read_text(raw, "label", path, problems, limit=200)
    help_text = read_text(raw, "helpText", path, problems, limit=1000, required=False)
    required = raw.get("required", False)
    if not isinstance(required, bool):
        problems.append(Problem(f"{path}.required", "Must be true or false."))
        required = False
    validation = raw.get("validation") or {}
    if not isinstance(validation, Mapping):
        problems.append(Problem(f"{path}.validation", "Must be an object."))
        validation = {}
    where = f"{path}.validation"
    min_value = _number(validation.get("min"), f"{where}.min", problems)
    max_value = _number(validation.get("max"), f"{where}.max", problems)
    min_length = _count(validation.get("minLength"), f"{where}.minLength", problems)
    max_length = _count(validation.get("maxLength"), f"{where}.maxLength", problems)
    if min_value is not None and max_value is not None and min_value > max_value:
        problems.append(Problem(f"{where}.max", "Must not be below the minimum."))
    if min_length is not None and max_length is not None and min_length > max_length:
        problems.append(Problem(f"{where}.maxLength", "Must not be below the minimum length."))
    options: list[tuple[str, str]] = []
    raw_options = raw.get("options")
    for at, option in read_objects(raw_options, f"{path}.options", problems, 100, "{value, label}"):
        value = read_text(option, "value", at, problems, limit=100)
        option_label = read_text(option, "label", at, problems, limit=200, required=False)
        if value in {v for v, _ in options}:
            problems.append(Problem(f"{at}.value", f"Duplicate option {value!r}."))
        elif value:
            options.append((value, option_label or value))
    if kind == "radioGroup" and not options:
        problems.append(Problem(f"{path}.options", "A radio group needs options."))
    base_region = raw.get("baseRegion") or "US"
    if not isinstance(base_region, str) or base_region.upper() not in PHONE_REGIONS:
        problems.append(Problem(f"{path}.baseRegion", "Must be a region of +1, +44 or +52."))
        base_region = "US"
    show_when = _show_when(raw.get("showWhen"), f"{path}.showWhen", problems)
    if len(problems) > before:
        return None
    field = FieldDef(
        key=key,
        type=str(kind),
        label=label,
        required=required,
        help_text=help_text,
        min_value=min_value,
        max_value=max_value,
        min_length=min_length,
        max_length=max_length,
        options=tuple(options),
        base_region=base_region.upper(),
        show_when=show_when,
    )
    default = raw.get("default")
    if default is not None:
        try:
            # The default must itself be a valid value (required or not: it is optional here).
            normalized = check_value(_optional(field), default)
        except FieldInvalid as invalid:
            problems.append(Problem(f"{path}.default", str(invalid)))
            return None
        if normalized is not EMPTY:
            field = FieldDef(**{**field.__dict__, "default": normalized})
    return field


def _show_when(raw: Any, path: str, problems: list[Problem]) -> str:
    """The condition of a ``showWhen``, as a definition keeps it ("" when there is none;
    workflows.engine.conditions: ``{field, hasValue: true}``, ``equals``... ``all`` / ``any``).
    Whether its keys name earlier fields is checked by the webform."""
    if raw is None:
        return ""
    try:
        return kept_condition(raw)
    except ConditionInvalid as invalid:
        where = f"{path}.{invalid.path}" if invalid.path else path
        problems.append(Problem(where, invalid.message))
        return ""


def _optional(field: FieldDef) -> FieldDef:
    return FieldDef(**{**field.__dict__, "required": False})


def _group(raw: Any, path: str, problems: list[Problem]) -> GroupDef | None:
    before = len(problems)
    key = _key(raw, path, problems)
    if key is None:
        return None
    label = read_text(raw, "label", path, problems, limit=200)
    help_text = read_text(raw, "helpText", path, problems, limit=1000, required=False)
    least = _count(raw.get("minEntries"), f"{path}.minEntries", problems)
    most = _count(raw.get("maxEntries"), f"{path}.maxEntries", problems)
    least = 0 if least is None else least
    most = 10 if most is None else most
    if not 1 <= most <= GROUP_MAX_ENTRIES:
        problems.append(Problem(f"{path}.maxEntries", f"Must be from 1 to {GROUP_MAX_ENTRIES}."))
    elif least > most:
        problems.append(Problem(f"{path}.minEntries", "Must not be above the maximum."))
    fields = []
    raw_fields = read_list(raw.get("fields"), f"{path}.fields", problems, MAX_FIELDS)
    if not raw_fields:
        problems.append(Problem(f"{path}.fields", "A repeating group needs at least one field."))
    for n, raw_field in enumerate(raw_fields):
        at = f"{path}.fields.{n}"
        field = parse_field(raw_field, at, problems)
        if field is None:
            continue
        if field.type not in GROUP_FIELD_TYPES:
            problems.append(Problem(f"{at}.type", "An image cannot be in a repeating group."))
        if field.show_when:
            problems.append(Problem(f"{at}.showWhen", "A field of a repeating group has none."))
        fields.append(field)
    if len(problems) > before:
        return None
    return GroupDef(
        key=key,
        label=label,
        fields=tuple(fields),
        min_entries=least,
        max_entries=most,
        help_text=help_text,
    )


class _Keys:
    """The keys of a webform met so far (fields, groups and their fields share one space), and
    the page of each: a showWhen must name a field met before it; and, unless the definition
    is one kept before this was checked (``check_options`` false), compare a field with options
    (a radio group) with values one of its options has."""

    def __init__(self, *, check_options: bool = True) -> None:
        self.page: dict[str, int] = {}
        self.in_group: set[str] = set()
        self.groups: dict[str, set[str]] = {}  # a repeating group's key -> its fields' keys
        self.options: dict[str, tuple[str, ...]] = {}  # a key or group.key -> its option values
        self.check_options = check_options
        self.current = 0  # the page being read

    def add(self, key: str, page: int, at: str, problems: list[Problem], *, grouped: bool) -> None:
        if key in self.page:
            problems.append(Problem(f"{at}.key", f"Another field has the key {key!r}."))
        self.page.setdefault(key, page)
        if grouped:
            self.in_group.add(key)

    def check_condition(
        self, condition: str, at: str, problems: list[Problem], *, page: int
    ) -> None:
        """The keys of a showWhen at ``at``: each a field before it outside any group (on an
        earlier page when ``page`` >= 0, the condition of a page), or ``<group>.<field>``, a
        field of a repeating group of an earlier page."""
        for key in condition_keys(condition):
            group, _, member = key.partition(".")
            if member:
                earlier = (
                    self.groups.get(group) is not None
                    and member in self.groups[group]
                    and self.page[group] < (page if page >= 0 else self.current)
                )
            else:
                earlier = key in self.page and key not in self.in_group
                if earlier and page >= 0 and self.page[key] >= page:
                    earlier = False
            if not earlier:
                where = "field on an earlier page" if page >= 0 else "earlier field"
                problems.append(Problem(f"{at}.showWhen.field", f"No {where} has the key {key!r}."))
        if self.check_options:
            self._check_values(condition, at, problems)

    def _check_values(self, text: str, at: str, problems: list[Problem]) -> None:
        """An equals, notEquals or oneOf on a field with options compares with values one of
        its options has ("Yes" where the option is "yes" would never hold)."""
        condition = condition_of(text)
        if condition is None:
            return
        alone = len(condition.rules) == 1 and condition.match == "all"
        for n, rule in enumerate(condition.rules):
            values = self.options.get(rule.field)
            if not values or rule.op not in ("equals", "notEquals", "oneOf"):
                continue
            where = f"{at}.showWhen.{'' if alone else f'{condition.match}.{n}.'}{rule.op}"
            for expected in rule.value if rule.op == "oneOf" else [rule.value]:
                if not any(same(value, expected) for value in values):
                    shown = ", ".join(repr(v) for v in values[:10])
                    more = ", …" if len(values) > 10 else ""
                    problems.append(
                        Problem(
                            where,
                            f"No option of {rule.field!r} has the value {expected!r}; "
                            f"its values: {shown}{more}.",
                        )
                    )


def _page(raw: Any, index: int, path: str, keys: _Keys, problems: list[Problem]) -> PageDef | None:
    keys.current = index
    at = f"{path}.pages.{index}"
    if not isinstance(raw, Mapping):
        problems.append(Problem(at, "Must be an object."))
        return None
    title = read_text(raw, "title", at, problems, limit=200)
    description = read_text(raw, "description", at, problems, limit=2000, required=False)
    page_id = read_text(raw, "id", at, problems, limit=40, required=False)
    show_when = _show_when(raw.get("showWhen"), f"{at}.showWhen", problems)
    if show_when:
        keys.check_condition(show_when, at, problems, page=index)
    raw_fields = read_list(raw.get("fields"), f"{at}.fields", problems, MAX_FIELDS)
    raw_groups = read_list(raw.get("groups"), f"{at}.groups", problems, MAX_GROUPS)
    if not raw_fields and not raw_groups:
        problems.append(Problem(f"{at}.fields", "A page needs at least one field."))
    fields = []
    for n, raw_field in enumerate(raw_fields):
        field = parse_field(raw_field, f"{at}.fields.{n}", problems)
        if field is None:
            continue
        if field.show_when:
            keys.check_condition(field.show_when, f"{at}.fields.{n}", problems, page=-1)
        keys.add(field.key, index, f"{at}.fields.{n}", problems, grouped=False)
        if field.options:
            keys.options[field.key] = tuple(value for value, _ in field.options)
        fields.append(field)
    groups = []
    for n, raw_group in enumerate(raw_groups):
        group = _group(raw_group, f"{at}.groups.{n}", problems)
        if group is None:
            continue
        keys.add(group.key, index, f"{at}.groups.{n}", problems, grouped=True)
        keys.groups[group.key] = {member.key for member in group.fields}
        for m, member in enumerate(group.fields):
            keys.add(member.key, index, f"{at}.groups.{n}.fields.{m}", problems, grouped=True)
            if member.options:
                keys.options[f"{group.key}.{member.key}"] = tuple(v for v, _ in member.options)
        groups.append(group)
    return PageDef(
        id=page_id or f"page{index + 1}",
        title=title,
        fields=tuple(fields),
        description=description,
        groups=tuple(groups),
        show_when=show_when,
    )


def parse_webform(
    raw: Any, path: str, problems: list[Problem], *, kept: bool = False
) -> WebformDef | None:
    """A webform of a definition; ``kept`` for one read back from storage, which is not held
    to the checks added after it may have been kept (a condition's value among the options)."""
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "Must be an object."))
        return None
    slug = read_text(raw, "slug", path, problems, limit=100)
    if slug and not SLUG.match(slug):
        problems.append(Problem(f"{path}.slug", "Use lowercase letters, digits and dashes."))
    name = read_text(raw, "name", path, problems, limit=200)
    eid = read_text(raw, "eid", path, problems, limit=40, required=False)
    raw_pages = read_list(raw.get("pages"), f"{path}.pages", problems, MAX_PAGES)
    if not raw_pages:
        problems.append(Problem(f"{path}.pages", "A webform needs at least one page."))
    keys = _Keys(check_options=not kept)
    pages = [
        page
        for index, raw_page in enumerate(raw_pages)
        if (page := _page(raw_page, index, path, keys, problems)) is not None
    ]
    total = sum(len(p.fields) + sum(len(g.fields) for g in p.groups) for p in pages)
    if total > MAX_FIELDS:
        problems.append(Problem(f"{path}.pages", f"At most {MAX_FIELDS} fields in a webform."))
    return WebformDef(eid=eid, slug=slug, name=name, pages=tuple(pages))
