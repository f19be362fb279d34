"""Random JSON, and hostile bodies (tests/hostile_json.py), thrown at the fill endpoint: never a
500."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile_json import HOSTILE_SETTINGS, hostile_body, tally_fixture

KEYS = [
    "name", "email", "ssn", "ein", "birthDate", "phone", "address", "amount", "quantity", "rate",
    "discount", "account", "agree", "colour", "notes", "comments", "title", "photo", "items",
    "prices", "footer", "value", "data", "unknown",
]  # fmt: skip
ROOT_KEYS = [
    "data",
    "title",
    "fontFamily",
    "fontSize",
    "textColor",
    "alignment",
    "fontWeight",
    "useInteractiveFields",
    "defaultReadOnly",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            "2024-02-29",
            "123456789",
            "#FF0000",
            "Noto Sans",
            "green",
            "data:image/png;base64,AAAA",
            "http://127.0.0.1/x.png",
            "{{pageNumber}}",
            "bold",
        ]
    ),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(
            st.sampled_from(KEYS + ["firstName", "num", "region", "fontSize", "readOnly"]),
            children,
            max_size=5,
        ),
    ),
    max_leaves=20,
)
bodies = st.one_of(
    values,
    st.fixed_dictionaries(
        {
            "data": st.one_of(
                st.dictionaries(st.sampled_from(KEYS), values, max_size=8),
                st.lists(st.dictionaries(st.sampled_from(KEYS), values, max_size=4), max_size=3),
                values,
            )
        },
        optional=dict.fromkeys(ROOT_KEYS[1:], values),
    ),
)


@pytest.mark.slow
@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=bodies, interactive=st.booleans())
def test_random_bodies_never_cause_a_500(demo_template, api_client, body, interactive) -> None:
    if isinstance(body, dict) and interactive:
        body = {**body, "useInteractiveFields": True}
    response = api_client.post(
        f"/api/v1/fill/{demo_template.eid}.pdf?versionNumber=-1",
        data=json.dumps(body),
        content_type="application/json",
    )

    assert response.status_code in (200, 400, 413), response.content[:300]
    if response.status_code == 200:
        assert response.content.startswith(b"%PDF-")
    else:
        assert response.json()["name"] in ("ValidationError", "RequestTooLarge")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=st.binary(max_size=300))
def test_random_bytes_never_cause_a_500(demo_template, api_client, raw) -> None:
    response = api_client.post(
        f"/api/v1/fill/{demo_template.eid}.pdf", data=raw, content_type="application/json"
    )

    assert response.status_code in (200, 400), response.content[:300]


# --- hostile shapes: depth, lone surrogates, other and invalid encodings, many keys ----------

FILL_TEMPLATES = [
    "%s",
    '{"data": %s}',
    '{"title": %s, "data": {"name": {"firstName": "Ada"}}}',
    '{"data": {"title": "x", "notes": %s}}',
    '{"data": {"items": [%s, "second"]}}',
    '{"data": [{"title": "one"}, {"notes": %s}]}',
    '{"fontSize": %s, "data": {"title": "x"}}',
    '{"data": {"name": {"firstName": %s, "lastName": "L"}}, "useInteractiveFields": true}',
    '{"data": {"title": "x"}, "defaultReadOnly": %s}',
]


fill_tally = tally_fixture("fill")


@pytest.mark.slow
@settings(HOSTILE_SETTINGS, max_examples=150)
@given(raw=hostile_body(FILL_TEMPLATES))
def test_hostile_bodies_are_a_pdf_or_a_4xx_in_the_wire_shape(
    demo_template, api_client, fill_tally, raw
) -> None:
    response = api_client.post(
        f"/api/v1/fill/{demo_template.eid}.pdf", data=raw, content_type="application/json"
    )
    fill_tally.count(response.status_code)

    assert response.status_code in (200, 400, 413), response.content[:300]
    if response.status_code == 200:
        assert response.content.startswith(b"%PDF-")
        return
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["name"] in ("ValidationError", "RequestTooLarge")
    if body["name"] == "ValidationError":
        assert all({"message", "property"} <= set(f) for f in body["fields"])
