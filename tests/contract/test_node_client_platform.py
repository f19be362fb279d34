"""@anvilco/anvil against the platform: GraphQL through its own request path."""

import pytest


@pytest.mark.django_db(transaction=True)
def test_current_user_through_the_node_client(node_anvil, organization, owner) -> None:
    report = node_anvil("requestGraphQL", query="{ currentUser { eid organizations { slug } } }")

    assert report["statusCode"] == 200
    assert report["errors"] is None
    assert report["data"] == {
        "data": {"currentUser": {"eid": owner.eid, "organizations": [{"slug": "acme"}]}}
    }


@pytest.mark.django_db(transaction=True)
def test_the_node_client_reports_a_bad_key(node_anvil, organization) -> None:
    report = node_anvil("requestGraphQL", key="wrong", query="{ currentUser { eid } }")

    assert report["statusCode"] == 401
    assert report["errors"][0]["message"] == "Not logged in: the API key is invalid or revoked."
