"""python-anvil's get_cast, get_casts and get_current_user against our service."""

import pytest

from templates_app.engine.demo import build_demo_template
from templates_app.services import template_create_with_spec


@pytest.fixture
def published_demo(organization):
    pdf, spec = build_demo_template()
    return template_create_with_spec(
        organization=organization, title="Demo", pdf=pdf, spec=spec, publish=True
    )


@pytest.mark.django_db(transaction=True)
def test_get_cast(python_anvil, published_demo) -> None:
    report = python_anvil("get_cast", eid=published_demo.eid)

    assert "error" not in report, report
    cast = report["result"]
    assert cast["eid"] == published_demo.eid
    assert cast["title"] == "Demo"
    assert len(cast["fieldInfo"]["fields"]) == 31


@pytest.mark.django_db(transaction=True)
def test_get_cast_with_version_and_fields(python_anvil, published_demo) -> None:
    report = python_anvil(
        "get_cast",
        eid=published_demo.eid,
        kwargs={"fields": ["eid", "versionNumber", "hasUnpublishedChanges"], "version_number": -1},
    )

    assert report == {
        "result": {"eid": published_demo.eid, "versionNumber": 1, "hasUnpublishedChanges": False}
    }


@pytest.mark.django_db(transaction=True)
def test_get_casts_and_current_user(python_anvil, published_demo, owner) -> None:
    casts = python_anvil("get_casts")
    user = python_anvil("current_user")

    assert "error" not in casts, casts
    assert [c["eid"] for c in casts["result"]] == [published_demo.eid]
    assert "error" not in user, user
    assert user["result"]["organizations"][0]["casts"] == [
        {"eid": published_demo.eid, "name": "Demo"}
    ]
    assert user["result"]["eid"] == owner.eid
