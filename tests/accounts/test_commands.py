import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts.models import ApiKey, Organization
from tests.conftest import basic_auth


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_create_organization_prints_only_the_eid(db: None) -> None:
    output = run("create_organization", "initech", "--name", "Initech")

    eid = output.strip()
    assert output == eid + "\n"
    organization = Organization.objects.get(slug="initech")
    assert organization.eid == eid
    assert organization.name == "Initech"


def test_create_organization_refuses_a_duplicate_slug(organization: Organization) -> None:
    with pytest.raises(CommandError, match="already exists"):
        run("create_organization", "acme", "--name", "Again")
    assert Organization.objects.filter(slug="acme").count() == 1


@pytest.mark.parametrize("kind", ["development", "production"])
def test_create_api_key_prints_a_working_key(organization: Organization, kind: str) -> None:
    raw_key = run("create_api_key", "acme", "--kind", kind).strip()

    assert ApiKey.objects.get().kind == kind
    response = Client(HTTP_AUTHORIZATION=basic_auth(raw_key)).post(
        "/graphql", data='{"query":"{ currentUser { eid } }"}', content_type="application/json"
    )
    assert response.status_code == 200


def test_create_api_key_for_an_unknown_organization_fails_cleanly(db: None) -> None:
    with pytest.raises(CommandError, match="No organization"):
        run("create_api_key", "nobody")
    assert ApiKey.objects.count() == 0
