"""Wire inputs declared once, as pydantic models, and what is derived from them: the problems of
a body in the wire shape (`Problem`: a dotted path and a message the compatible clients know)
and the body's OpenAPI component schemas.

An engine declares its input with `WireModel` (camelCase on the wire, unknown keys ignored,
``null`` the same as not given, no coercion: ``"12"`` is no number and ``1`` no boolean) and
checks a body with `validate`. The messages are today's: a type's own ("Must be a string.",
"Must be true or false.", "Must be an object.", "Required") or the one a field names with
`says` or raises with `refusal`; pydantic's own wording never reaches a caller.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import PydanticCustomError, core_schema

from core.engine.problems import Problem

Schema = dict[str, Any]
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

# Where the OpenAPI document keeps its component schemas (core/openapi.py's ``ref``).
COMPONENTS_REF = "#/components/schemas/{model}"
# The error type of every message this module hands pydantic: its text is the caller's message.
_WIRE = "wire"
# pydantic's error types whose message is the same wherever they occur.
_TYPE_MESSAGES = {
    "missing": "Required",
    "string_type": "Must be a string.",
    "bool_type": "Must be true or false.",
    "model_type": "Must be an object.",
    "model_attributes_type": "Must be an object.",
    "dict_type": "Must be an object.",
}


class WireModel(BaseModel):
    """An object of a wire input. Subclasses declare snake_case fields; the wire names are their
    camelCase (``font_size`` is ``fontSize``), in the problems' paths too."""

    model_config = ConfigDict(
        strict=True, extra="ignore", frozen=True, alias_generator=to_camel, populate_by_name=False
    )

    @model_validator(mode="before")
    @classmethod
    def _null_is_not_given(cls, data: object) -> object:
        # The published clients send null for what they leave out; a required key sent as null
        # is "Required", as when it is missing.
        if isinstance(data, Mapping):
            return {key: value for key, value in data.items() if value is not None}
        return data


def refusal(message: str) -> PydanticCustomError:
    """The error to raise from a validator for ``message``, as the caller will read it."""
    return PydanticCustomError(_WIRE, "{message}", {"message": message})


def says(message: str) -> WrapValidator:
    """A field's own message for a value of the wrong type or out of its bounds (any problem
    with the value itself; problems inside an array or object keep their own)."""

    def check(value: object, handler: ValidatorFunctionWrapHandler) -> object:
        try:
            return handler(value)
        except ValidationError as error:
            if any(not item["loc"] for item in error.errors()):
                raise refusal(message) from None
            raise

    return WrapValidator(check)


def one_of(choices: Sequence[str]) -> str:
    """The message for a value that is none of ``choices``."""
    return "Must be one of: " + ", ".join(f'"{choice}"' for choice in choices) + "."


def with_context(check: Callable[[T, Any], T], key: str) -> Callable[[T, ValidationInfo], T]:
    """A validator that needs what the caller passes in ``context[key]`` (the font catalogue)."""

    def validate(value: T, info: ValidationInfo) -> T:
        context = info.context or {}
        return check(value, context[key])

    return validate


def problems_of(error: ValidationError, prefix: str = "") -> list[Problem]:
    """Each error of ``error`` as a `Problem`, its path dotted below ``prefix``."""
    problems = []
    for item in error.errors(include_url=False):
        path = ".".join(str(part) for part in (prefix, *item["loc"]) if part != "")
        if item["type"] == _WIRE:
            message = str(item["ctx"]["message"]) if "ctx" in item else item["msg"]
        else:
            # A type without a message of its own is a mistake in a model, not the caller's:
            # pydantic's wording is kept so that a test meets it.
            message = _TYPE_MESSAGES.get(item["type"], item["msg"])
        problems.append(Problem(path, message))
    return problems


def validate(
    model: type[M], value: object, *, prefix: str = "", context: Mapping[str, Any] | None = None
) -> tuple[M | None, list[Problem]]:
    """``value`` checked against ``model``: (the model, []) or (None, its problems)."""
    try:
        return model.model_validate(value, context=dict(context or {})), []
    except ValidationError as error:
        return None, problems_of(error, prefix)


def validate_as(
    adapter: TypeAdapter[T],
    value: object,
    *,
    prefix: str = "",
    context: Mapping[str, Any] | None = None,
) -> tuple[T, list[Problem]] | tuple[None, list[Problem]]:
    """``value`` checked against a type that is no model (an array of them): as `validate`."""
    try:
        return adapter.validate_python(value, context=dict(context or {})), []
    except ValidationError as error:
        return None, problems_of(error, prefix)


def component_ref(name: str) -> WithJsonSchema:
    """A value whose schema is the OpenAPI component ``name`` registered elsewhere (core's
    ``EncryptedData``)."""
    return WithJsonSchema({"$ref": COMPONENTS_REF.format(model=name)})


class WireSchema(GenerateJsonSchema):
    """JSON Schema as the OpenAPI document writes it: no generated titles, and an optional
    field's schema is its value's (``null`` means not given, which each body's description
    says once) with no ``default: null``."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        result = super().model_schema(schema)
        result.pop("title", None)
        if isinstance(result.get("description"), str):
            # A docstring's line breaks are the source's, not the text's.
            result["description"] = re.sub(r"(?<!\n)\n(?!\n)", " ", result["description"])
        return result

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        inner = schema["schema"]
        if schema.get("default", ...) is None and inner["type"] == "nullable":
            return self.generate_inner(inner["schema"])
        return super().default_schema(schema)


def component_schemas(*models: type[BaseModel]) -> dict[str, Schema]:
    """The component schemas of ``models`` and every model they use, named by class."""
    top, definitions = models_json_schema(
        [(model, "validation") for model in models],
        ref_template=COMPONENTS_REF,
        schema_generator=WireSchema,
    )
    found: dict[str, Schema] = dict(definitions.get("$defs", {}))
    for model in models:
        found.setdefault(model.__name__, top[(model, "validation")])
    # Only what the models reach: a type validated by a function of its own (a length parsed
    # from its text) leaves the definition of what it becomes, which no schema names.
    schemas: dict[str, Schema] = {}
    pending = [model.__name__ for model in models]
    while pending:
        name = pending.pop()
        if name in schemas or name not in found:
            continue
        schemas[name] = found[name]
        pending.extend(_references(found[name]))
    return dict(sorted(schemas.items()))


def _references(value: object) -> list[str]:
    """The component names ``value`` refers to."""
    prefix = COMPONENTS_REF.removesuffix("{model}")
    if isinstance(value, dict):
        names = [value["$ref"].removeprefix(prefix)] if "$ref" in value else []
        return names + [name for item in value.values() for name in _references(item)]
    if isinstance(value, list):
        return [name for item in value for name in _references(item)]
    return []
