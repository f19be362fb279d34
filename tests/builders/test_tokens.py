"""generateEmbedURL: a link that opens one object of the caller's organization in one builder,
for what it names, until it expires; every refusal in the wire shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Organization
from builders.models import EmbedToken
from builders.sweeps import embed_tokens_expired_delete
from core.sweeps import sweeps_run
from templates_app.engine.demo import build_demo_template
from templates_app.models import PdfTemplate
from templates_app.services import template_create_with_spec, working_version
from tests.builders.conftest import GENERATE
from tests.pdfcheck import page_text

pytestmark = pytest.mark.django_db

TEMPLATE = "edit-pdf-template"


def move_clock(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    later = timezone.now() + timedelta(seconds=seconds)
    monkeypatch.setattr(timezone, "now", lambda: later)


def post_json(client: Client, url: str, body: dict[str, Any]) -> Any:
    return client.post(url, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def anonymous() -> Client:
    """The embedded user's browser: no session, no API key, CSRF checked as browsers are."""
    return Client(enforce_csrf_checks=True)


def test_the_url_opens_the_editor_of_that_template_framed_by_the_organization(
    embed_url: Callable[..., str],
    demo_template: PdfTemplate,
    organization: Organization,
    anonymous: Client,
) -> None:
    organization.embed_origins = ["https://app.example.com"]
    organization.save()

    path = embed_url(eid=demo_template.eid, type=TEMPLATE)
    page = anonymous.get(path)
    spec = anonymous.get(f"{path}spec/")
    pdf = anonymous.get(f"{path}pdf/")

    assert page.status_code == 200
    assert page["Content-Security-Policy"].startswith(
        "frame-ancestors 'self' https://app.example.com;"
    )
    assert "X-Frame-Options" not in page
    html = page.content.decode()
    assert 'id="editor"' in html
    assert "/admin/" not in html  # no admin chrome, no link into it
    assert spec.json()["title"] == demo_template.title
    assert pdf.content.startswith(b"%PDF")


def test_a_token_with_edit_saves_and_one_without_publish_cannot_publish(
    embed_url: Callable[..., str], demo_template: PdfTemplate, anonymous: Client
) -> None:
    path = embed_url(eid=demo_template.eid, type=TEMPLATE, permissions=["edit"])
    spec = anonymous.get(f"{path}spec/").json()["spec"]
    spec["fields"][0]["alias"] = "renamedByEmbed"

    saved = post_json(anonymous, f"{path}spec/", {"spec": spec, "title": "Renamed"})
    published = post_json(anonymous, f"{path}publish/", {})

    assert saved.status_code == 200, saved.content
    demo_template.refresh_from_db()
    assert demo_template.title == "Renamed"
    assert working_version(demo_template).spec["fields"][0]["alias"] == "renamedByEmbed"
    assert published.status_code == 403
    assert published.json() == {
        "name": "ForbiddenError",
        "message": "This link does not allow 'publish'.",
    }
    assert demo_template.versions.filter(number=2).count() == 0
    page = anonymous.get(path).content.decode()
    assert 'data-action="save"' in page
    assert 'data-action="publish"' not in page


def test_a_publish_only_token_cannot_save(
    embed_url: Callable[..., str], demo_template: PdfTemplate, anonymous: Client
) -> None:
    path = embed_url(eid=demo_template.eid, type=TEMPLATE, permissions=["publish"])
    state = anonymous.get(f"{path}spec/").json()
    refused = post_json(anonymous, f"{path}spec/", {"spec": state["spec"], "title": "No"})
    detect = post_json(anonymous, f"{path}detect/", {})
    published = post_json(anonymous, f"{path}publish/", {})

    assert refused.status_code == 403
    assert refused.json()["name"] == "ForbiddenError"
    assert detect.status_code == 403
    assert published.status_code == 200
    assert published.json()["publishedNumber"] == 2
    demo_template.refresh_from_db()
    assert demo_template.title == "Demo"


def test_the_link_stops_working_when_it_expires(
    embed_url: Callable[..., str],
    demo_template: PdfTemplate,
    anonymous: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = embed_url(eid=demo_template.eid, type=TEMPLATE, validForSeconds=600)
    assert anonymous.get(f"{path}spec/").status_code == 200

    move_clock(monkeypatch, 599)
    assert anonymous.get(f"{path}spec/").status_code == 200
    move_clock(monkeypatch, 601)
    page = anonymous.get(path)
    spec = anonymous.get(f"{path}spec/")

    assert spec.status_code == 404
    assert spec.json() == {
        "name": "NotFoundError",
        "message": "This link has expired or does not exist: ask for a new one.",
    }
    # The page of a dead link may be framed by anyone, and says so to its parent.
    assert page.status_code == 404
    assert page["Content-Security-Policy"].startswith("frame-ancestors *")
    assert '"action": "embedError"' in page.content.decode()


def test_a_token_for_one_template_opens_no_other(
    embed_url: Callable[..., str],
    demo_template: PdfTemplate,
    organization: Organization,
    anonymous: Client,
) -> None:
    pdf, spec = build_demo_template()
    other = template_create_with_spec(organization=organization, title="Other", pdf=pdf, spec=spec)
    path = embed_url(eid=demo_template.eid, type=TEMPLATE)
    token = path.rstrip("/").rsplit("/", 1)[1]

    # The URLs name no template: the token is the only key, and it names one.
    assert other.eid not in path
    assert anonymous.get(f"{path}spec/").json()["title"] == "Demo"
    # Another builder's URLs with this token open nothing.
    assert anonymous.get(f"/embed/edit-etch-packet/{token}/").status_code == 404
    assert post_json(anonymous, f"/embed/edit-etch-packet/{token}/send/", {}).status_code == 404
    # Nor does a token with a letter changed.
    forged = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert anonymous.get(f"/embed/{TEMPLATE}/{forged}/spec/").status_code == 404


def test_another_organizations_template_is_refused_as_absent(
    graphql: Callable[..., dict[str, Any]],
    client_for: Callable[[str], Client],
    other_api_key: str,
    demo_template: PdfTemplate,
) -> None:
    result = graphql(
        GENERATE, {"eid": demo_template.eid, "type": TEMPLATE}, client_for(other_api_key)
    )

    assert result["data"]["generateEmbedURL"] is None
    (error,) = result["errors"]
    assert error["message"] == f"No template with eid '{demo_template.eid}'."
    assert error["extensions"] == {"code": "NotFoundError", "status": 404}
    assert EmbedToken.objects.count() == 0


@pytest.mark.parametrize(
    ("variables", "fields"),
    [
        ({"type": "edit-everything"}, [("type", "One of edit-pdf-template, edit-etch-packet")]),
        ({"validForSeconds": 0}, [("validForSeconds", "A whole number of seconds from 1")]),
        ({"validForSeconds": 10**7}, [("validForSeconds", "A whole number of seconds from 1")]),
        ({"permissions": ["edit", "send"]}, [("permissions", "Not an action of edit-pdf")]),
        ({"permissions": []}, [("permissions", "A non-empty list")]),
        ({"options": {"castEids": []}}, [("options", "Not an option of edit-pdf-template")]),
        ({"metadata": [1]}, [("metadata", "An object")]),
    ],
)
def test_bad_arguments_are_named_and_nothing_is_stored(
    graphql: Callable[..., dict[str, Any]],
    demo_template: PdfTemplate,
    variables: dict[str, Any],
    fields: list[tuple[str, str]],
) -> None:
    result = graphql(GENERATE, {"eid": demo_template.eid, "type": TEMPLATE, **variables})

    (error,) = result["errors"]
    got = [(f["property"], f["message"]) for f in error["extensions"]["fields"]]
    assert [p for p, _ in got] == [p for p, _ in fields]
    for (_, message), (_, start) in zip(got, fields, strict=True):
        assert message.startswith(start), message
    assert EmbedToken.objects.count() == 0


def test_the_packet_builder_opens_only_its_own_organization_and_named_templates(
    graphql: Callable[..., dict[str, Any]],
    embed_url: Callable[..., str],
    organization: Organization,
    other_organization: Organization,
    demo_template: PdfTemplate,
    anonymous: Client,
) -> None:
    wrong = graphql(GENERATE, {"eid": other_organization.eid, "type": "edit-etch-packet"})
    foreign = graphql(
        GENERATE,
        {"eid": organization.eid, "type": "edit-etch-packet", "options": {"castEids": ["nope"]}},
    )
    pdf, spec = build_demo_template()
    unnamed = template_create_with_spec(organization=organization, title="U", pdf=pdf, spec=spec)
    path = embed_url(
        eid=organization.eid, type="edit-etch-packet", options={"castEids": [demo_template.eid]}
    )

    assert wrong["errors"][0]["message"] == f"No organization with eid '{other_organization.eid}'."
    assert foreign["errors"][0]["extensions"]["fields"] == [
        {"property": "options.castEids.0", "message": "No template with eid 'nope'."}
    ]
    assert anonymous.get(f"{path}templates/{demo_template.eid}/").status_code == 200
    refused = anonymous.get(f"{path}templates/{unnamed.eid}/pdf/")
    assert refused.status_code == 403
    assert refused.json()["name"] == "ForbiddenError"


def test_expire_embed_url_ends_it_now_and_only_for_its_organization(
    graphql: Callable[..., dict[str, Any]],
    client_for: Callable[[str], Client],
    other_api_key: str,
    demo_template: PdfTemplate,
    anonymous: Client,
) -> None:
    made = graphql(GENERATE, {"eid": demo_template.eid, "type": TEMPLATE})["data"]
    eid = made["generateEmbedURL"]["requestTokenEid"]
    path = made["generateEmbedURL"]["url"].split("://", 1)[1].split("/", 1)[1]
    expire = "mutation($e: String!) { expireEmbedURL(requestTokenEid: $e) }"

    stranger = graphql(expire, {"e": eid}, client_for(other_api_key))
    assert anonymous.get(f"/{path}spec/").status_code == 200
    mine = graphql(expire, {"e": eid})

    assert stranger["errors"][0]["message"] == f"No embed token with eid '{eid}'."
    assert mine["data"]["expireEmbedURL"] is True
    assert anonymous.get(f"/{path}spec/").status_code == 404


def test_the_hosted_apis_options_are_accepted_and_only_ours_are_kept(
    graphql: Callable[..., dict[str, Any]], demo_template: PdfTemplate
) -> None:
    # The hosted API's example of its embedded template editor, unchanged.
    options = {
        "pageTitle": "Title of the page",
        "mode": "preset-fields",
        "title": "Welcome",
        "description": "Please draw fields indicated below.",
        "fields": [{"name": "Full name", "type": "fullName", "aliasId": "name"}],
    }
    result = graphql(GENERATE, {"eid": demo_template.eid, "type": TEMPLATE, "options": options})
    typo = graphql(
        GENERATE, {"eid": demo_template.eid, "type": TEMPLATE, "options": {"pageTitel": "x"}}
    )

    assert "errors" not in result, result
    assert EmbedToken.objects.get().options == {"pageTitle": "Title of the page"}
    assert typo["errors"][0]["extensions"]["fields"] == [
        {"property": "options", "message": "Not an option of edit-pdf-template: pageTitel."}
    ]


def test_a_link_whose_template_was_deleted_says_so_instead_of_failing(
    embed_url: Callable[..., str], demo_template: PdfTemplate, anonymous: Client
) -> None:
    path = embed_url(eid=demo_template.eid, type=TEMPLATE)
    demo_template.delete()

    page = anonymous.get(path)
    spec = anonymous.get(f"{path}spec/")

    assert page.status_code == 404
    assert '"action": "embedError"' in page.content.decode()
    assert spec.json() == {
        "name": "NotFoundError",
        "message": f"No template with eid '{demo_template.eid}'.",
    }


def test_the_sweep_deletes_tokens_a_day_after_they_end(
    embed_url: Callable[..., str], demo_template: PdfTemplate, monkeypatch: pytest.MonkeyPatch
) -> None:
    embed_url(eid=demo_template.eid, type=TEMPLATE, validForSeconds=60)
    embed_url(eid=demo_template.eid, type=TEMPLATE, validForSeconds=3 * 24 * 3600)
    start = timezone.now()

    assert embed_tokens_expired_delete(now=start + timedelta(hours=23)) == 0
    assert sweeps_run(now=start + timedelta(days=1, minutes=2))["builders.expired_tokens"] == 0
    assert EmbedToken.objects.count() == 1
    assert embed_tokens_expired_delete(now=start + timedelta(days=4, minutes=2)) == 1


def test_the_preview_fills_the_working_version_for_any_token_of_the_template(
    embed_url: Callable[..., str], demo_template: PdfTemplate, anonymous: Client
) -> None:
    path = embed_url(eid=demo_template.eid, type=TEMPLATE, permissions=["publish"])
    spec = anonymous.get(f"{path}spec/").json()["spec"]
    alias = next(f["alias"] for f in spec["fields"] if f["type"] == "shortText")

    filled = post_json(anonymous, f"{path}preview/", {"data": {alias: "Embedded preview"}})

    assert filled.status_code == 200
    assert filled["Content-Type"] == "application/pdf"
    assert "Embedded preview" in page_text(filled.content)


def test_the_editor_says_it_is_english_whatever_the_reader_asks(
    embed_url: Callable[..., str], demo_template: PdfTemplate, anonymous: Client
) -> None:
    # Its scripts' words are not translated yet: a page marked German would be read out with
    # German rules. The packet builder, translated, follows the reader (test_packet_send).
    path = embed_url(eid=demo_template.eid, type=TEMPLATE)

    page = Client(HTTP_ACCEPT_LANGUAGE="de").get(f"{path}?lang=de")

    assert '<html lang="en" dir="ltr">' in page.content.decode()
    assert page["Content-Language"] == "en"
