"""No REST or public-form input is a 500 (issue 32): hostile bodies to fill, generate-pdf and
verify, hostile text in the paths (the document-group and submission downloads, a signer's
documents and pages), and hostile posts to a webform page and to a signer's finish and decline.
The world and the shared helpers are in test_no_input_is_a_500.py."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core.test_no_input_is_a_500 import (
    HYPOTHESIS,
    World,
    assert_refused_cleanly,
    assert_wire_error,
    in_path,
    new_packet,
    rows,
    with_hostile,
)
from tests.core.test_no_input_is_a_500 import world as world  # noqa: F401 - the fixture
from tests.hostile_json import EDGE_INTEGERS, HOSTILE_INPUT, HOSTILE_TEXT
from workflows.definitions.rows import definition_of
from workflows.engine.form_inputs import input_names

pytestmark = pytest.mark.django_db


# --- REST ------------------------------------------------------------------------------------

FILL_BODIES = [
    '{"data": {"title": "@@hostile@@"}}',
    '{"title": "@@hostile@@", "data": {"title": "x"}}',
    '{"data": {"name": {"firstName": "@@hostile@@"}, "quantity": "@@hostile@@"}}',
    '{"data": {"items": [{"description": "@@hostile@@"}]}}',
    '{"fontSize": "@@hostile@@", "data": {}}',
    '{"data": "@@hostile@@"}',
    '"@@hostile@@"',
]
GENERATE_BODIES = [
    '{"type": "markdown", "data": [{"content": "@@hostile@@"}]}',
    '{"type": "markdown", "title": "@@hostile@@", "data": [{"label": "x", "content": "y"}]}',
    '{"type": "markdown", "data": [{"table": {"rows": [["@@hostile@@"]]}}]}',
    '{"type": "html", "data": {"html": "@@hostile@@"}}',
    '{"type": "@@hostile@@", "data": [{"content": "x"}]}',
    '{"type": "markdown", "fontSize": "@@hostile@@", "data": [{"content": "x"}]}',
    '{"type": "markdown", "page": {"width": "@@hostile@@"}, "data": [{"content": "x"}]}',
    '"@@hostile@@"',
]
VERIFY_BODIES = ['{"file": "@@hostile@@"}', '"@@hostile@@"']


@st.composite
def rest_cases(draw: st.DrawFn) -> tuple[str, str, bytes | None]:
    """(method, path with {eid} and {text} to fill, body or None)."""
    raw = draw(HOSTILE_INPUT)
    text = in_path(draw(HOSTILE_TEXT))
    number = in_path(str(draw(EDGE_INTEGERS)))
    choice = draw(
        st.sampled_from(
            [
                ("post", "/api/v1/fill/{template}.pdf", FILL_BODIES),
                ("post", "/api/v1/generate-pdf", GENERATE_BODIES),
                ("post", "/api/v1/verify", VERIFY_BODIES),
                ("post", f"/api/v1/fill/{text}.pdf", FILL_BODIES[:1]),
                ("post", f"/api/v1/fill/{{template}}.pdf?versionNumber={number}", FILL_BODIES[:1]),
                ("post", f"/api/v1/fill/{{template}}.pdf?versionNumber={text}", FILL_BODIES[:1]),
                ("get", f"/api/document-group/{text}.zip", None),
                ("get", f"/download/{text}.zip", None),
                ("get", "/api/document-group/{group}.zip", None),
                ("get", "/download/{weld_data}.zip", None),
                ("get", f"/api/etch/verify/{text}?token={text}", None),
                ("get", f"/api/etch/sign/{{signer}}/documents/{text}.pdf", None),
                ("get", f"/api/etch/sign/{{signer}}/documents/agreement/pages/{number}.webp", None),
            ]
        )
    )
    method, path, bodies = choice
    body = with_hostile(draw(st.sampled_from(bodies)), raw) if bodies else None
    return method, path, body


@settings(HYPOTHESIS, max_examples=150)
@given(case=rest_cases())
def test_no_rest_input_is_a_500(world: World, case: tuple[str, str, bytes | None]) -> None:
    method, path, body = case
    path = path.format(
        template=world.template_eid,
        group=world.packet["documentGroup"]["eid"],
        weld_data=world.weld_data_eid,
        signer=world.signer_eid,
    )
    before = rows()

    if method == "get":
        response = world.client.get(path)
    else:
        response = world.client.post(path, data=body, content_type="application/json")

    assert response.status_code != 500, response.content[:500]
    if response.status_code >= 400 and not path.startswith("/api/etch/"):
        assert_refused_cleanly(response, before)
    elif response.status_code >= 400:
        # The signer's pages answer people: an HTML page or its JSON, never a 500.
        assert rows() == before


# --- the public forms --------------------------------------------------------------------------


@st.composite
def webform_posts(draw: st.DrawFn) -> tuple[str, dict[str, str]]:
    """(webform slug, the page's post) with one input, or the page number, made hostile."""
    slug = draw(st.sampled_from(["about-you", "order"]))
    text = draw(HOSTILE_TEXT | EDGE_INTEGERS.map(str))
    where = draw(st.sampled_from(["input", "page", "action", "forge"]))
    return slug, {"where": where, "text": text, "pick": str(draw(st.integers(0, 50)))}


@settings(HYPOTHESIS, max_examples=80)
@given(case=webform_posts())
def test_no_webform_post_is_a_500(world: World, case: tuple[str, dict[str, str]]) -> None:
    slug, how = case
    definition = definition_of(world_workflow(world))
    webform = definition.webform(slug=slug)
    assert webform is not None
    names = [name for field in webform.pages[0].fields for name in input_names(field)]
    post = {"forge": world.forge_eids[slug], "page": "0", "action": "next"}
    post.update(dict.fromkeys(names, ""))
    target = {"input": names[int(how["pick"]) % len(names)]}.get(how["where"], how["where"])
    post[target] = how["text"]
    body = urlencode(post, quote_via=lambda s, *a: quote(s.encode("utf-8", "surrogatepass"), ""))
    before = rows()

    response = Client().post(
        f"/form/{world_organization_slug(world)}/{world.workflow_slug}",
        data=body,
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code != 500, response.content[:500]
    if response.status_code == 400:
        assert rows() == before


def world_workflow(world: World) -> Any:
    from workflows.models import Workflow

    return Workflow.objects.get(eid=world.workflow_eid)


def world_organization_slug(world: World) -> str:
    return world_workflow(world).organization.slug


SIGNER_BODIES = [
    '{"reason": "@@hostile@@"}',
    '"@@hostile@@"',
    '{"signature": {"typed": "@@hostile@@"}}',
    '{"signature": "@@hostile@@"}',
    '{"signature": {"typed": "Ada"}, "values": {"agreement/title1": "@@hostile@@"}}',
    '{"signature": {"typed": "Ada"}, "values": "@@hostile@@"}',
    '{"signature": {"typed": "Ada"}, "initials": "@@hostile@@"}',
]


@settings(HYPOTHESIS, max_examples=80)
@given(
    action=st.sampled_from(["complete", "decline"]),
    template=st.sampled_from(SIGNER_BODIES),
    raw=HOSTILE_INPUT,
)
def test_no_signer_finish_or_decline_is_a_500(
    world: World, action: str, template: str, raw: str
) -> None:
    if world.packet["documentGroup"]["signers"][0].get("done"):
        new_packet(world)
    before = rows()

    response = Client().post(
        f"/api/etch/sign/{world.signer_eid}/{action}",
        data=with_hostile(template, raw),
        content_type="application/json",
        HTTP_X_SIGNING_TOKEN=world.token,
    )

    assert response.status_code in (200, 400, 409, 413), response.content[:500]
    if response.status_code == 200:
        world.packet["documentGroup"]["signers"][0]["done"] = True
        return
    assert_wire_error(response)
    assert rows() == before
