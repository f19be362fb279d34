"""python-anvil against the platform: authentication and currentUser."""

import pytest


@pytest.mark.django_db(transaction=True)
def test_current_user_through_python_anvil(python_anvil, organization, owner) -> None:
    query = "{ currentUser { eid name email role organizations { eid name slug } } }"
    report = python_anvil("query", query=query)

    assert "error" not in report, report
    user = report["result"]["currentUser"]
    assert user["eid"] == owner.eid
    assert user["email"] == "olivia@acme.test"
    assert user["organizations"][0]["slug"] == "acme"
    assert user["organizations"][0]["eid"] == organization.eid


@pytest.mark.django_db(transaction=True)
def test_python_anvil_reports_a_bad_key(python_anvil, organization) -> None:
    report = python_anvil("current_user", key="not-a-key")

    assert "error" in report
    assert "401" in report["error"]
