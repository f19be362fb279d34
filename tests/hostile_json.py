"""Hypothesis strategies for hostile request bodies, as raw bytes: the shapes fuzzing found 500s
with. JSON nested thousands deep, strings with lone surrogates, bodies in other encodings or with
invalid UTF-8, objects with tens of thousands of keys, numbers JSON allows and Python may not.

``hostile_body(templates)`` puts one hostile JSON value into one of the endpoint's body
``templates`` (each with one ``%s``) and encodes the result. ``Tally`` counts the answers, and
writes them to test-artifacts/ for the report (cases tried, 5xx seen).

``HOSTILE_INPUT`` is one value where a property is expected, as JSON text: text that is no text
(NUL, other control characters, lone surrogates), whole numbers at and beyond the columns' ends,
the wrong JSON type, nesting too deep. ``HOSTILE_TEXT`` is the text alone, as a Python string,
for URL paths, form posts and GraphQL literals. ``IMPOSSIBLE_MOMENTS`` are dates and times that
do not exist, for every argument that takes one.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"

# The hostile-input tests' settings: no deadline (a request may be slow on a loaded machine), the
# same function-scoped fixtures (a client, a template) for every example, and large bodies, on
# purpose. A test gives its own max_examples: ``@settings(HOSTILE_SETTINGS, max_examples=150)``.
HOSTILE_SETTINGS = settings(
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)


def _nested(depth: int, objects: bool) -> str:
    if objects:
        return '{"k":' * depth + "0" + "}" * depth
    return "[" * depth + "]" * depth


NESTED = st.builds(_nested, st.integers(min_value=30, max_value=5000), st.booleans())

# A JSON string literal with one lone surrogate escape in it. Hypothesis's text() has no
# surrogates of its own, so the escape is never half of a pair.
SURROGATE = st.builds(
    lambda before, code, after: json.dumps(before)[:-1] + f"\\u{code:04x}" + json.dumps(after)[1:],
    st.text(max_size=12),
    st.integers(min_value=0xD800, max_value=0xDFFF),
    st.text(max_size=12),
)

MANY_KEYS = st.builds(
    lambda count, nested: (
        "{" + ",".join(f'"k{i}":{"{}" if nested else i}' for i in range(count)) + "}"
    ),
    st.integers(min_value=1_000, max_value=40_000),
    st.booleans(),
)

NUMBERS = st.sampled_from(
    ["1e400", "-1e400", "1e-400", "-0", "9" * 5000, "123456789012345678901234567890", "0.1e1"]
)

NON_ASCII_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0x80, max_codepoint=0x2FFF), min_size=1, max_size=20
).map(json.dumps)

HOSTILE_VALUE = st.one_of(NESTED, SURROGATE, MANY_KEYS, NUMBERS, NON_ASCII_TEXT)

# NUL, the other C0 controls and DEL, alone or inside ordinary text.
CONTROL_CHARACTERS = st.sampled_from(
    ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f"]
)
HOSTILE_TEXT = st.one_of(
    st.builds(
        lambda before, control, after: before + control + after,
        st.sampled_from(["", "Ada", "ada@example.com", "abcdefghij0123456789"]),
        CONTROL_CHARACTERS,
        st.sampled_from(["", "x", "@example.com", ".pdf"]),
    ),
    st.integers(min_value=0xD800, max_value=0xDFFF).map(lambda code: "a" + chr(code) + "b"),
    st.text(max_size=12),
    st.sampled_from(["x" * 300, "é" * 3000, "", " ", "-1", "0" * 40]),
)
# 2^31 and 2^63 are one past PostgreSQL's integer and SQLite's (and bigint's) largest.
EDGE_INTEGERS = st.sampled_from(
    [2**31 - 1, 2**31, 2**63 - 1, 2**63, 2**64, -1, 0, -(2**31) - 1, -(2**63) - 1, 10**30]
)
# Text shaped like an ISO 8601 date and time that names no moment: the day, month, hour or
# offset out of range, a year 0. Django's parse_datetime raises for these (where it answers None
# for text not shaped like a date).
IMPOSSIBLE_MOMENTS = st.sampled_from(
    [
        "2030-02-30",
        "2030-02-30T10:00:00Z",
        "2030-13-01",
        "2030-13-01T00:00:00",
        "2030-00-10T00:00:00",
        "2030-01-01T25:00:00Z",
        "2030-01-01T10:61:00Z",
        "2030-01-01T10:00:00+99:00",
        "2030-01-01T10:00:00-24:00",
        "0000-01-01T00:00:00Z",
        "99999-01-01T00:00:00Z",
    ]
)
WRONG_TYPES = st.sampled_from([[], {}, [""], {"a": 1}, 0, 1.5, True, False, None, "", "x"])
DEEP = st.builds(_nested, st.integers(min_value=65, max_value=3000), st.booleans())
# One value as JSON text (json.dumps writes a lone surrogate as its \udXXX escape).
HOSTILE_INPUT = st.one_of(
    HOSTILE_TEXT.map(json.dumps),
    EDGE_INTEGERS.map(str),
    WRONG_TYPES.map(json.dumps),
    DEEP,
)

ENCODINGS = st.sampled_from(
    ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252"]
)
INVALID_BYTES = st.sampled_from(
    [
        b"\xff",
        b"\xc3\x28",  # a lead byte followed by a non-continuation
        b"\xed\xa0\x80",  # a surrogate encoded as UTF-8 (CESU-8)
        b"\xc0\xaf",  # an overlong "/"
        b"\xf8\x88\x80\x80\x80",  # a five-byte sequence
        b"\x00",
    ]
)


@st.composite
def hostile_body(draw: st.DrawFn, templates: list[str]) -> bytes:
    """One hostile value in one of ``templates``, encoded one way or another, maybe broken."""
    text = draw(st.sampled_from(templates)) % draw(HOSTILE_VALUE)
    encoding = draw(ENCODINGS)
    raw = text.encode(encoding, errors="surrogatepass" if "utf" in encoding else "replace")
    if draw(st.booleans()) and draw(st.integers(0, 3)) == 0:
        at = draw(st.integers(min_value=0, max_value=len(raw)))
        raw = raw[:at] + draw(INVALID_BYTES) + raw[at:]
    return raw


class Tally:
    """Answers by status code, written to test-artifacts/fuzz-<name>.json when closed."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.statuses: Counter[int] = Counter()

    def count(self, status: int) -> None:
        self.statuses[status] += 1

    def close(self) -> None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        ARTIFACTS.mkdir(exist_ok=True)
        summary = {
            "cases": sum(self.statuses.values()),
            "server_errors": sum(n for status, n in self.statuses.items() if status >= 500),
            "by_status": {str(k): v for k, v in sorted(self.statuses.items())},
        }
        (ARTIFACTS / f"fuzz-{self.name}-{worker}.json").write_text(json.dumps(summary, indent=1))


def tally_fixture(name: str) -> Callable[[], Iterator[Tally]]:
    """A module-scoped fixture ``<name>_tally``: a :class:`Tally` closed (written) at the end."""

    @pytest.fixture(scope="module", name=f"{name}_tally")
    def tally() -> Iterator[Tally]:
        tally = Tally(name)
        yield tally
        tally.close()

    return tally
