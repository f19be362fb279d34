"""docs/ stand alone and open with requests that work.

- No page points outside the repository: not at "the spec", `spec/<file>`, COMPATIBILITY.md or
  `../shared` (they are not in a clone; what users need from them is written in docs/).
- The API pages open with a "Try it" section holding a curl command authenticated with `-u`, and
  every python-anvil example there sets the client up with the lines of docs/clients.md.
- The value formats docs/fill.md documents per field type are what the fill engine accepts, and
  what it draws: each example below is one of the page's, resolved against the demo template
  with the engine's own value checks (no server). Keep this table and the page's together.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from core.engine.template_spec import FieldSpec, TemplateSpec
from fill.engine.errors import FillInvalid
from fill.engine.formatting import one_line
from fill.engine.payload import DataResolver, Entry
from templates_app.engine.demo import build_demo_template

DOCS = Path(__file__).resolve().parents[2] / "docs"
# The pages of the API, each opening with a request a newcomer can paste.
API_PAGES = ("fill", "generate", "esign", "workflows", "webhooks", "clients")
# What points outside the repository. `spec/` alone is allowed only as the visual editor's own
# endpoint (docs/editor.md, "`spec/` (GET the working version"), never followed by a file name.
OUTSIDE = (
    re.compile(r"\bthe spec\b", re.IGNORECASE),
    re.compile(r"spec/\w"),
    re.compile(r"COMPATIBILITY(\.md)?"),
    re.compile(r"wire-captures"),
    re.compile(r"\.\./shared\b|\bshared/(spec|fixtures)"),
)
CURL_WITH_KEY = re.compile(r"^\s*curl\b[^\n]*\s-u\s+\"\$API_KEY:\"", re.MULTILINE)


def try_it(page: str) -> str:
    """The page's first section, which must be its "Try it"."""
    text = (DOCS / f"{page}.md").read_text()
    first = text.split("\n## ", 1)[1]
    heading, _, body = first.partition("\n")
    assert heading == "Try it", f"docs/{page}.md opens with '## {heading}', not '## Try it'"
    return body.split("\n## ", 1)[0]


def code_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)


@pytest.mark.parametrize("page", sorted(p.stem for p in DOCS.glob("*.md")))
def test_no_page_points_outside_the_repository(page: str) -> None:
    text = (DOCS / f"{page}.md").read_text()
    found = [
        f"line {text.count(chr(10), 0, match.start()) + 1}: {match.group(0)!r}"
        for pattern in OUTSIDE
        for match in pattern.finditer(text)
    ]
    assert found == [], f"docs/{page}.md points outside the repository: {found}"


@pytest.mark.parametrize("page", API_PAGES)
def test_each_api_page_opens_with_a_curl_request_with_the_key(page: str) -> None:
    section = try_it(page)
    shell = "\n".join(code_blocks(section, "sh"))

    assert CURL_WITH_KEY.search(shell), f'docs/{page}.md\'s Try it has no curl -u "$API_KEY:"'


def clients_setup() -> list[str]:
    """docs/clients.md's python-anvil setup: the lines after the values, without comments."""
    section = (DOCS / "clients.md").read_text().split("\n## python-anvil\n", 1)[1]
    block = code_blocks(section, "python")[0]
    return [line for line in block.splitlines() if line.startswith(("RestRequest", "Plain", "py"))]


@pytest.mark.parametrize("page", API_PAGES)
def test_python_anvil_examples_set_the_client_up_as_clients_md_says(page: str) -> None:
    setup = clients_setup()
    assert len(setup) == 3, setup
    examples = [b for b in code_blocks(try_it(page), "python") if "Anvil(" in b]

    assert examples, f"docs/{page}.md's Try it has no python-anvil example"
    for block in examples:
        for line in setup:
            assert line in block.splitlines(), f"docs/{page}.md: {line!r} missing"
        assert 'anvil = Anvil(api_key=API_KEY, endpoint_url=f"{BASE_URL}/graphql")' in block


# --- docs/fill.md, "Values by field type" ---------------------------------------------------

PNG_1PX = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9Q"
    "DwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
# type -> the demo field it is tried on, then (the example as the page writes it, the value it
# stands for (None: the JSON of the text), what the field draws for it (None: not checked)).
ACCEPTED: dict[str, tuple[str, list[tuple[str, Any, str | None]]]] = {
    "shortText": ("title", [('"Sample text"', None, "Sample text"), ("1234.5", None, "1234.5")]),
    "email": ("email", [('"ada@example.com"', None, "ada@example.com")]),
    "ssn": ("ssn", [('"123456789"', None, "123-45-6789"), ('"123-45-6789"', None, "123-45-6789")]),
    "ein": ("ein", [('"987654321"', None, "98-7654321"), ('"98-7654321"', None, "98-7654321")]),
    "date": (
        "birthDate",
        [
            ('"1815-12-10"', None, "December 10, 1815"),
            ('"2024-03-15T10:30:00Z"', None, None),
        ],
    ),
    "number": ("rate", [("1234.5", None, "1,234.500"), ('"1,234.5"', None, "1,234.500")]),
    "dollar": (
        "amount",
        [("99.95", None, "$99.95"), ('"1,234.50"', None, "$1,234.50"), ("-5", None, "-$5.00")],
    ),
    "integer": ("quantity", [("42", None, "42"), ("2.5", None, "3")]),
    "percent": ("discount", [("12.5", None, "12.5%")]),
    "checkbox": ("agree", [("true", None, None)]),
    "radioGroup": ("colour", [('"green"', None, None)]),
    "imageFile": (
        "photo",
        [
            ('"https://example.com/logo.png"', None, None),
            ('"data:image/png;base64,iVBORw0KGgo…"', PNG_1PX, None),
        ],
    ),
    "charList": ("account", [('"123456789"', None, None)]),
    "textWrap": (
        "notes",
        [('["First line", "Second line"]', None, None), ('"First line\\nSecond line"', None, None)],
    ),
    "fullName": (
        "name",
        [('{"firstName": "Ada", "mi": "K", "lastName": "Lovelace"}', None, "Ada K Lovelace")],
    ),
    "usAddress": (
        "address",
        [
            (
                '{"street1": "123 Main St", "city": "San Francisco", "state": "CA", "zip": "94103"}',
                None,
                "123 Main St, San Francisco, CA 94103",
            )
        ],
    ),
    "phone": (
        "phone",
        [
            ('"4155550132"', None, "(415) 555-0132"),
            ('"(415) 555-0132"', None, "(415) 555-0132"),
            (
                '{"num": "+44 20 7946 0958", "region": "GB", "baseRegion": "US"}',
                None,
                "+44 20 7946 0958",
            ),
        ],
    ),
}
# What the page says a field draws for values it names in prose rather than as examples.
DRAWN = [
    ("phone", {"num": "4155550132", "region": "US", "baseRegion": "GB"}, "+1 (415) 555-0132"),
    ("phone", {"num": "55 1234 5678", "region": "MX", "baseRegion": "US"}, "+52 551 234 5678"),
    ("birthDate", "1815-12-10", "December 10, 1815"),
]
# What the page says is refused, by the demo field it is tried on.
REFUSED = [
    ("birthDate", "03/15/2024"),
    ("amount", "$12"),
    ("discount", "12.5%"),
    ("discount", 101),
    ("agree", "true"),
    ("agree", 1),
    ("name", "Ada Lovelace"),
    ("colour", "purple"),
    ("ssn", "12345678"),
    ("phone", {"num": "0123456789", "region": "FR"}),
]


@pytest.fixture(scope="module")
def demo_spec() -> TemplateSpec:
    return build_demo_template()[1]


def resolve(spec: TemplateSpec, alias: str, value: Any) -> Entry:
    resolver = DataResolver(spec, max_array_length=100, font_problem=lambda name: None)
    entry = resolver.resolve({alias: value}, "data")[alias]
    assert isinstance(entry, Entry)
    return entry


def field_of(spec: TemplateSpec, alias: str) -> FieldSpec:
    # The one-box field of the alias (the demo's `name` has a second field, in parts).
    return next(f for f in spec.fields if f.alias == alias and not f.parts)


def values_section() -> str:
    text = (DOCS / "fill.md").read_text()
    return text.split("\n## Values by field type\n", 1)[1].split("\n## ", 1)[0]


def test_every_field_type_has_a_row_and_every_example_is_on_the_page(
    demo_spec: TemplateSpec,
) -> None:
    section = values_section()
    types = {f.type for f in demo_spec.fields if not f.is_signer} - {"longText"}

    assert set(ACCEPTED) == types
    for kind, (_, examples) in ACCEPTED.items():
        row = next(line for line in section.splitlines() if line.startswith(f"| `{kind}`"))
        for text, _, drawn in examples:
            assert f"`{text}`" in row, (kind, text)
            if drawn is not None:
                assert f"`{drawn}`" in row or drawn == text.strip('"'), (kind, drawn)


@pytest.mark.parametrize(
    ("kind", "text", "value", "drawn"),
    [(kind, *example) for kind, (_, examples) in ACCEPTED.items() for example in examples],
)
def test_each_documented_value_passes_the_fill_engines_checks(
    demo_spec: TemplateSpec, kind: str, text: str, value: Any, drawn: str | None
) -> None:
    alias = ACCEPTED[kind][0]
    field = field_of(demo_spec, alias)
    assert field.type == kind

    entry = resolve(demo_spec, alias, json.loads(text) if value is None else value)

    if drawn is not None:
        assert one_line(field, entry.value) == drawn


@pytest.mark.parametrize(("alias", "value", "drawn"), DRAWN)
def test_what_the_page_says_a_value_is_drawn_as(
    demo_spec: TemplateSpec, alias: str, value: Any, drawn: str
) -> None:
    assert f"`{drawn}`" in values_section()
    assert one_line(field_of(demo_spec, alias), resolve(demo_spec, alias, value).value) == drawn


@pytest.mark.parametrize(("alias", "value"), REFUSED)
def test_what_the_page_says_is_refused_is_refused(
    demo_spec: TemplateSpec, alias: str, value: Any
) -> None:
    with pytest.raises(FillInvalid) as refused:
        resolve(demo_spec, alias, value)

    assert [p.path for p in refused.value.problems] == [f"data.{alias}"]


def test_a_key_that_names_no_field_is_ignored(demo_spec: TemplateSpec) -> None:
    resolver = DataResolver(demo_spec, max_array_length=100, font_problem=lambda name: None)

    assert resolver.resolve({"nmae": "Ada", "title": "T"}, "data").keys() == {"title"}
    assert "A key that names no field" in values_section()
