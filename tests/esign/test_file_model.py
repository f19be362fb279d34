"""A file of createEtchPacket is declared once (esign.engine.file_model, issue 53 item 1): the
parser reads files through it with today's problems (paths, messages and their order, the
wire's old leniencies), the MCP tool's ``files`` items are derived from it, and the GraphQL
reference's EtchFile descriptions are its own."""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.engine.input_checks import LINE_MESSAGE
from core.engine.problems import Problem
from core.engine.template_spec import Rect
from esign.engine.file_model import FileModel, SignFieldModel, file_schema
from esign.graphql_docs import DESCRIPTIONS, FILE_FIELD_SHAPE
from esign.packets.file_inputs import file_input
from mcp_server.schemas import create_packet

RECT = {"x": 10, "y": 20, "width": 100, "height": 30}
SIGNATURE = {"id": "sig1", "type": "signature", "pageNum": 0, "rect": RECT}
TYPES = (
    "checkbox, date, email, fullName, initial, longText, shortText, signature, signatureDate, text"
)


def read(raw: Any, index: int = 0) -> tuple[Any, list[tuple[str, str]]]:
    problems: list[Problem] = []
    file = file_input(raw, index, problems)
    return file, [(p.path, p.message) for p in problems]


def test_a_good_file_is_read_into_its_values() -> None:
    file, problems = read(
        {
            "id": " lease ",
            "castEid": " tpl1 ",
            "title": " Lease ",
            "fontSize": 11.5,
            "textColor": 7,
            "unknownKey": 1,
            "fields": [
                SIGNATURE,
                {"id": "rent", "type": "shortText", "page": 2, "rect": RECT, "value": " 900 "},
            ],
        },
        index=2,
    )
    assert problems == []
    assert (file.id, file.cast_eid, file.title, file.filename) == (
        "lease",
        "tpl1",
        "Lease",
        "Lease.pdf",
    )
    assert (file.font_size, file.text_color, file.source) == (11.5, None, "template")
    assert [(f.id, f.type, f.page, f.value) for f in file.fields] == [
        ("sig1", "signature", 0, None),
        ("rent", "shortText", 2, "900"),
    ]
    assert file.fields[0].rect == Rect(10.0, 20.0, 100.0, 30.0)


def test_markup_and_markdown_blocks_are_sources() -> None:
    file, problems = read({"id": "a", "markup": {"html": "<p>x</p>", "css": 5}})
    assert problems == []
    assert (file.html, file.css, file.filename) == ("<p>x</p>", "", "a.pdf")
    blocks = [{"heading": "Terms"}, {"content": "Pay on time."}, SIGNATURE]
    file, problems = read({"id": "b", "fields": blocks})
    assert problems == []
    assert file.markdown_blocks == tuple(blocks[:2])
    assert [f.id for f in file.fields] == ["sig1"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("nope", [("files.0", "Must be an object.")]),
        (
            {"castEid": "t", "fields": [{"type": "signature", "rect": RECT}]},
            [("files.0.id", "Required"), ("files.0.fields.0.id", "Required")],
        ),
        (
            {
                "id": "f",
                "castEid": "t",
                "fields": [
                    SIGNATURE,
                    {**SIGNATURE, "id": " sig1 ", "type": "stamp", "pageNum": -1},
                    None,
                    {**SIGNATURE, "id": "s2", "pageNum": None},
                    {**SIGNATURE, "id": "s3", "rect": {**RECT, "width": 0}},
                    {**SIGNATURE, "id": "s4", "rect": {"x": 1}},
                    {"id": "s5", "type": "checkbox", "rect": RECT, "value": "yes"},
                ],
            },
            [
                ("files.0.fields.1.id", "Duplicate field id 'sig1'."),
                ("files.0.fields.1.type", f"Must be one of {TYPES}."),
                ("files.0.fields.1.pageNum", "Must be a page index from 0."),
                ("files.0.fields.2", "Must be an object."),
                ("files.0.fields.3.pageNum", "Must be a page index from 0."),
                ("files.0.fields.4.rect", "Width and height must be positive."),
                ("files.0.fields.5.rect", "Must be {x, y, width, height} in points."),
                ("files.0.fields.6.value", "Must be true or false for a checkbox."),
            ],
        ),
        (
            {"id": "f", "castEid": " ", "title": "a\nb", "fields": {"a": 1}},
            [
                ("files.0.fields", "Must be a list of fields."),
                ("files.0.title", LINE_MESSAGE),
                ("files.0.castEid", "Must be a template eid."),
            ],
        ),
        (
            {"id": "f", "castEid": "t", "markup": {"html": 5}},
            [("files.0", "Give one source, not castEid and markup.")],
        ),
        ({"id": "f", "markup": {"css": "c"}}, [("files.0.markup", "Must be {html, css}.")]),
        (
            {"id": "f", "fields": [SIGNATURE]},
            [("files.0", "Needs a source: castEid, file (a PDF), markup or Markdown blocks.")],
        ),
        # Once a 500 (a number is no list to look for Markdown blocks in).
        (
            {"id": "f", "fields": 5},
            [
                ("files.0.fields", "Must be a list of fields."),
                ("files.0", "Needs a source: castEid, file (a PDF), markup or Markdown blocks."),
            ],
        ),
        (
            {"id": "f", "base64File": {"data": 5, "filename": "a\nb"}},
            [
                ("files.0.base64File.filename", LINE_MESSAGE),
                ("files.0.file", "An inline upload needs 'data' as base64 text."),
            ],
        ),
    ],
)
def test_each_problem_is_named_as_before(raw: Any, expected: list[Any]) -> None:
    assert read(raw)[1] == expected


def test_a_field_refused_for_its_type_is_kept_for_the_signers_checks() -> None:
    file, problems = read(
        {
            "id": "f",
            "title": "A\x00b",
            "castEid": "t",
            "fields": [{"id": "s", "type": 5, "pageNum": "2", "rect": RECT}],
        }
    )
    assert [path for path, _message in problems] == [
        "files.0.fields.0.type",
        "files.0.fields.0.pageNum",
        "files.0.title",
    ]
    # As before: its id, its type as sent and page 0, so that a signer naming it is not refused
    # too; the title as sent.
    assert [(f.id, f.type, f.page) for f in file.fields] == [("s", "5", 0)]
    assert file.title == "A\x00b"


def test_the_mcp_tool_takes_the_models_schema() -> None:
    items = create_packet()["properties"]["files"]["items"]
    declared = file_schema()
    wire_keys = [str(field.alias) for field in FileModel.model_fields.values()]
    assert list(items["properties"]) == wire_keys == list(declared["FileModel"]["properties"])
    assert items["required"] == ["id"]
    field = items["properties"]["fields"]["items"]["anyOf"][0]
    assert list(field["properties"]) == ["id", "type", "pageNum", "rect", "value"]
    assert field["required"] == ["id", "type", "rect"]
    assert sorted(field["properties"]["type"]["enum"]) == TYPES.split(", ")
    assert items["properties"]["markup"]["properties"]["html"] == {
        "type": "string",
        "description": "The document's HTML.",
    }


def test_the_graphql_descriptions_are_the_models() -> None:
    described = DESCRIPTIONS["EtchFile"]
    for field in FileModel.model_fields.values():
        if field.alias not in ("file", "fields", "markup"):
            assert described[str(field.alias)] == field.description
    assert set(described) == {str(field.alias) for field in FileModel.model_fields.values()}
    example = FILE_FIELD_SHAPE.split("```")[1]
    shown = re.findall(r'^  "(\w+)":', example, flags=re.MULTILINE)
    assert shown == [str(field.alias) for field in SignFieldModel.model_fields.values()]
