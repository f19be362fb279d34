"""python-anvil's get_cast, get_casts and get_current_user against our service."""

import pytest


@pytest.mark.django_db(transaction=True)
def test_get_cast(python_anvil, demo_template) -> None:
    report = python_anvil("get_cast", eid=demo_template.eid)

    assert "error" not in report, report
    cast = report["result"]
    assert cast["eid"] == demo_template.eid
    assert cast["title"] == "Demo"
    assert len(cast["fieldInfo"]["fields"]) == 31


@pytest.mark.django_db(transaction=True)
def test_get_cast_with_version_and_fields(python_anvil, demo_template) -> None:
    report = python_anvil(
        "get_cast",
        eid=demo_template.eid,
        kwargs={"fields": ["eid", "versionNumber", "hasUnpublishedChanges"], "version_number": -1},
    )

    assert report == {
        "result": {"eid": demo_template.eid, "versionNumber": 1, "hasUnpublishedChanges": False}
    }


@pytest.mark.django_db(transaction=True)
def test_get_casts_and_current_user(python_anvil, demo_template, owner) -> None:
    casts = python_anvil("get_casts")
    user = python_anvil("current_user")

    assert "error" not in casts, casts
    assert [c["eid"] for c in casts["result"]] == [demo_template.eid]
    assert "error" not in user, user
    assert user["result"]["organizations"][0]["casts"] == [
        {"eid": demo_template.eid, "name": "Demo"}
    ]
    assert user["result"]["eid"] == owner.eid
