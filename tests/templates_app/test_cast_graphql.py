"""The cast and casts queries, directly and through the published python-anvil client."""

import json

import pytest
from django.test import Client

from core.engine.template_spec import FIELD_TYPES
from templates_app import services

CAST_FIELDS = """eid title name isTemplate versionNumber publishedNumber latestDraftVersionNumber
hasUnpublishedChanges hasBeenPublished publishedAt fieldInfo exampleData createdAt updatedAt"""


def graphql(client: Client, query: str, variables: dict | None = None) -> dict:
    response = client.post(
        "/graphql",
        data=json.dumps({"query": query, "variables": variables or {}}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_cast_reports_versions_and_fields(api_client: Client, demo_template) -> None:
    body = graphql(api_client, f'{{ cast(eid: "{demo_template.eid}") {{ {CAST_FIELDS} }} }}')
    cast = body["data"]["cast"]

    assert cast["eid"] == demo_template.eid
    assert cast["title"] == cast["name"] == "Demo"
    assert cast["isTemplate"] is True
    assert (cast["versionNumber"], cast["publishedNumber"], cast["latestDraftVersionNumber"]) == (
        1,
        1,
        1,
    )
    assert (cast["hasUnpublishedChanges"], cast["hasBeenPublished"]) == (False, True)
    assert cast["publishedAt"].endswith("Z")
    assert len(cast["publishedAt"]) == 24
    info = cast["fieldInfo"]
    assert {f["type"] for f in info["fields"]} == set(FIELD_TYPES)
    name = next(f for f in info["fields"] if f["id"] == "name")
    assert name == {
        "id": "name",
        "alias": "name",
        "type": "fullName",
        "name": "Full name (one box)",
        "pageNum": 0,
        "rect": {"x": 54.0, "y": 690.0, "width": 240.0, "height": 18.0},
        "array": None,
        "readOnly": False,
    }
    item = next(f for f in info["fields"] if f["id"] == "item3")
    assert item["array"] == {"id": "items", "alias": "items", "row": 3}
    assert (
        info["pages"]
        == [{"width": 612.0, "height": 792.0, "rotate": 0, "mediaBox": [0.0, 0.0, 612.0, 792.0]}]
        * 2
    )
    example = cast["exampleData"]
    assert example["items"] == ["Sample text 1", "Sample text 2"]
    assert example["colour"] == "red"
    assert example["account"] == "123456789"  # character boxes get digits
    assert "item0" not in example


def test_version_number_selects_the_working_version(api_client: Client, demo_template) -> None:
    spec = services.working_version(demo_template).spec
    spec["fields"][0]["label"] = "Renamed"
    services.template_update_working(template=demo_template, spec=spec)

    query = "query($eid: String!, $v: Int) { cast(eid: $eid, versionNumber: $v) { versionNumber hasUnpublishedChanges fieldInfo } }"
    working = graphql(api_client, query, {"eid": demo_template.eid, "v": -1})["data"]["cast"]
    published = graphql(api_client, query, {"eid": demo_template.eid, "v": -2})["data"]["cast"]

    assert working["versionNumber"] == 2
    assert working["hasUnpublishedChanges"] is True
    assert working["fieldInfo"]["fields"][0]["name"] == "Renamed"
    assert published["versionNumber"] == 1
    assert published["fieldInfo"]["fields"][0]["name"] == "Full name (one box)"


@pytest.mark.parametrize("version", [7, 0])
def test_an_unknown_version_is_a_not_found_error(
    api_client: Client, demo_template, version: int
) -> None:
    body = graphql(
        api_client, f'{{ cast(eid: "{demo_template.eid}", versionNumber: {version}) {{ eid }} }}'
    )

    assert body["data"] == {"cast": None}
    assert body["errors"][0]["extensions"]["code"] == "NotFoundError"


def test_another_organizations_cast_is_not_found(
    client_for, other_api_key: str, demo_template
) -> None:
    body = graphql(
        client_for(other_api_key), f'{{ cast(eid: "{demo_template.eid}") {{ eid title }} }}'
    )

    assert body["data"] == {"cast": None}
    assert body["errors"][0]["message"] == f"No template with eid '{demo_template.eid}'."
    assert body["errors"][0]["extensions"]["code"] == "NotFoundError"


def test_casts_lists_only_the_organizations_templates(
    api_client: Client, demo_template, fw9_template, other_organization
) -> None:
    services.template_create_from_pdf(
        organization=other_organization,
        title="Theirs",
        pdf=services.version_pdf(services.working_version(fw9_template)),
    )
    fw9_template.is_template = False
    fw9_template.save()

    query = "query($t: Boolean) { currentUser { organizations { casts(isTemplate: $t) { eid title } } } }"
    templates_only = graphql(api_client, query, {"t": True})["data"]["currentUser"][
        "organizations"
    ][0]["casts"]
    everything = graphql(api_client, query, {})["data"]["currentUser"]["organizations"][0]["casts"]

    assert templates_only == [{"eid": demo_template.eid, "title": "Demo"}]
    assert sorted(c["title"] for c in everything) == ["Demo", "W-9"]


def test_listing_casts_takes_a_fixed_number_of_queries(
    api_client: Client, demo_template, fw9_template, organization, settings
) -> None:
    settings.RATE_LIMIT_ENABLED = False  # a new rate-limit window costs one query more
    # The keys' usage counts are written every few seconds, whatever request is running then.
    settings.API_KEY_USAGE_FLUSH_SECONDS = 3600
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    query = "{ currentUser { organizations { casts { eid versionNumber hasUnpublishedChanges fieldInfo } } } }"

    def count_queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            graphql(api_client, query)
        return len(captured)

    count_queries()  # the first call of a key also records its last use
    with_two = count_queries()
    for title in ("A", "B", "C"):
        services.template_create_from_pdf(
            organization=organization,
            title=title,
            pdf=services.version_pdf(services.working_version(fw9_template)),
        )
    assert count_queries() == with_two
