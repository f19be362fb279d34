"""The fill request body's root, declared once: ``data`` (one document's values, an array of
them, or an encrypted string), the title, the document's style and the two flags.

`fill.engine.payload.parse_fill_request` checks the root with `FillRequest`; fill/openapi.py
derives the OpenAPI components from it. Which keys ``data`` takes depends on the template, so
``FillData`` is an object of any values here: `fill.engine.payload.DataResolver` checks them
against the template. The style properties are read by ``core.engine.style.parse_style`` (the
one reading of a style, shared with templates and with the styles inside ``data``); their types
and bounds here are what the document shows, and tests/fill/test_request_model.py holds the two
to the same values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    RootModel,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
)

from core.engine.problems import Problem
from core.engine.style import MAX_FONT_SIZE, parse_style
from core.engine.template_spec import ALIGNMENTS, FONT_WEIGHTS
from core.engine.wire_models import COMPONENTS_REF, WireModel, component_ref, refusal, says

if TYPE_CHECKING:
    Alignment = str
    FontWeight = str
else:
    Alignment = Literal[ALIGNMENTS]
    FontWeight = Literal[FONT_WEIGHTS]

COLOR_PATTERN = r"^#?[0-9A-Fa-f]{6}$"
_DOCUMENT_MESSAGE = "Must be an object of field values."


def _style_reading(key: str) -> BeforeValidator:
    """A validator that reads ``key`` as parse_style does: its message, its normal form."""

    def read(value: object) -> object:
        problems: list[Problem] = []
        style = parse_style({key: value}, "", problems)
        if problems:
            raise refusal(problems[0].message)
        return {
            "fontFamily": style.font_family,
            "fontSize": style.font_size,
            "textColor": style.text_color,
            "alignment": style.alignment,
            "fontWeight": style.font_weight,
        }[key]

    return BeforeValidator(read)


class FillData(RootModel[dict[str, Any]]):
    """Alias -> value. Absent or `null` leaves a field empty; keys that name no field are
    ignored."""

    root: dict[
        str,
        Annotated[
            Any,
            WithJsonSchema(
                {
                    "description": "A value of the field's type (see above).",
                    "anyOf": [
                        {"type": kind}
                        for kind in ("string", "number", "boolean", "object", "array", "null")
                    ],
                }
            ),
        ],
    ]


_DOCUMENTS: TypeAdapter[list[FillData]] = TypeAdapter(
    list[Annotated[FillData, says(_DOCUMENT_MESSAGE)]]
)


def _data(value: object, handler: ValidatorFunctionWrapHandler) -> FillData | list[FillData]:
    # Checked here rather than as the union, whose problems would name its branches; an
    # encrypted string is decrypted by the service before the body comes here.
    if value == "" or value == [] or value == {}:
        raise refusal("Required")
    if isinstance(value, list):
        return _DOCUMENTS.validate_python(value)
    if isinstance(value, Mapping):
        return FillData.model_validate(dict(value))
    raise refusal("Must be an object, an array of objects or an encrypted string.")


class FillRequest(WireModel):
    """The values, and the style of this fill. Unknown properties are ignored."""

    data: Annotated[
        # One document's values: at least one (an empty object is "Required"); inside an array
        # a document may be empty.
        Annotated[
            FillData,
            WithJsonSchema({"$ref": COMPONENTS_REF.format(model="FillData"), "minProperties": 1}),
        ]
        | Annotated[list[FillData], Field(min_length=1)]
        | Annotated[str, component_ref("EncryptedData")],
        WrapValidator(_data),
    ] = Field(
        description="Values keyed by the template's aliases; an array of such objects fills the "
        "template once per element into one PDF (whole-PDF repeat); or a string encrypted with "
        "the organization's payload key.",
    )
    title: str | None = Field(None, description="The PDF's title (its Info dictionary).")
    font_family: (
        Annotated[
            str,
            Field(min_length=1, pattern=r"\S"),
            _style_reading("fontFamily"),
        ]
        | None
    ) = Field(
        None,
        description="Exact, case-sensitive: `Courier`, `Helvetica`, `Times New Roman`, "
        "`Noto Sans` or any Google Fonts family. Another name is a 400 on `fontFamily`.",
    )
    font_size: Annotated[float, Field(gt=0, le=MAX_FONT_SIZE), _style_reading("fontSize")] | (
        None
    ) = Field(None, description="Points; text may shrink below it to fit its box.")
    text_color: Annotated[str, Field(pattern=COLOR_PATTERN), _style_reading("textColor")] | (
        None
    ) = Field(None, description="Six hex digits, `#` optional.")
    alignment: Annotated[Alignment, _style_reading("alignment")] | None = Field(
        None, description="Horizontal alignment in the box."
    )
    font_weight: Annotated[FontWeight, _style_reading("fontWeight")] | None = Field(
        None, description="Weight and slant."
    )
    use_interactive_fields: bool = Field(
        False, description="Real AcroForm fields instead of flat text."
    )
    default_read_only: bool = Field(
        False, description="Interactive fields are read-only unless a value sets `readOnly`."
    )
