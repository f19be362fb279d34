"""A webhook URL the outbound guard would refuse at every delivery (a private or loopback
address) is refused where it is set, naming the setting that allows it; nothing is saved."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings

from accounts.models import Organization, User
from core.engine.fetch import FetchError, FetchPolicy, check_address
from esign.models import Packet
from tests.conftest import graphql_answer as graphql
from tests.esign.conftest import CREATE, two_signer_packet
from tests.workflows.conftest import FORGE_SUBMIT
from webhooks.models import WebhookEvent
from webhooks.services import endpoint_get, endpoint_url_set
from workflows.demo import demo_workflow_create
from workflows.models import Submission

pytestmark = pytest.mark.django_db

REFUSED = [
    "http://127.0.0.1:8080/hook",
    "http://localhost:3000/hook",
    "https://10.1.2.3/hook",
    "http://[::1]/hook",
    "https://169.254.169.254/latest",
]


def fields(body: dict[str, Any]) -> list[dict[str, str]]:
    return body["errors"][0]["extensions"]["fields"]


# --- the engine ---------------------------------------------------------------------------------


def resolves_to(address: str) -> Any:
    return lambda host, port: [address]


def test_check_address_refuses_a_name_that_resolves_to_a_private_address() -> None:
    with pytest.raises(FetchError) as caught:
        check_address(
            "https://hooks.example.com/in", FetchPolicy(), resolve=resolves_to("10.0.0.7")
        )

    assert caught.value.code == "address_not_allowed"


def test_check_address_passes_public_allowed_and_unresolvable_names() -> None:
    def unresolvable(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    check_address(
        "https://hooks.example.com/in", FetchPolicy(), resolve=resolves_to("93.184.215.14")
    )
    check_address(
        "http://receiver.internal/in",
        FetchPolicy(allow_hosts=frozenset({"receiver.internal"})),
        resolve=resolves_to("10.0.0.7"),
    )
    check_address("http://10.0.0.7/in", FetchPolicy(allow_networks=("10.0.0.0/8",)))
    check_address("https://not-yet.example.com/in", FetchPolicy(), resolve=unresolvable)


# --- the settings page and the service ------------------------------------------------------------


@pytest.mark.parametrize("url", REFUSED)
def test_the_settings_page_refuses_a_private_url_and_keeps_the_old_one(
    owner: User, organization: Organization, settings: Settings, url: str
) -> None:
    settings.FETCH_ALLOW_HOSTS = []
    settings.FETCH_ALLOW_NETWORKS = []
    endpoint_url_set(organization=organization, url="https://hooks.example.com/in")
    client = Client()
    client.force_login(owner)

    response = client.post(reverse("settings:webhook-url", args=["acme"]), {"url": url})

    assert response.status_code == 400
    html = response.content.decode()
    assert "Webhook URL saved." not in html
    assert "FETCH_ALLOW_HOSTS" in html
    assert "non-public address" in html
    assert endpoint_get(organization=organization).url == "https://hooks.example.com/in"


def test_the_allowlist_lets_a_local_receiver_be_saved(
    organization: Organization, settings: Settings
) -> None:
    settings.FETCH_ALLOW_HOSTS = ["localhost"]
    settings.FETCH_ALLOW_NETWORKS = ["10.0.0.0/8"]

    endpoint_url_set(organization=organization, url="http://localhost:3000/hook")
    assert endpoint_get(organization=organization).url == "http://localhost:3000/hook"
    endpoint_url_set(organization=organization, url="https://10.1.2.3/hook")
    assert endpoint_get(organization=organization).url == "https://10.1.2.3/hook"


# --- webhookURL arguments -------------------------------------------------------------------------


def test_webhook_test_refuses_a_loopback_url(api_client: Client, settings: Settings) -> None:
    settings.FETCH_ALLOW_NETWORKS = []
    body = graphql(
        api_client,
        "mutation($url: String) { webhookTest(url: $url) { eid } }",
        {"url": "http://127.0.0.1:9/hook"},
    )

    [field] = fields(body)
    assert field["property"] == "url"
    assert "FETCH_ALLOW_HOSTS" in field["message"]
    assert WebhookEvent.objects.count() == 0


def test_create_etch_packet_refuses_a_private_webhook_url(
    api_client: Client, settings: Settings
) -> None:
    settings.FETCH_ALLOW_NETWORKS = []
    body = graphql(api_client, CREATE, two_signer_packet(webhookURL="http://192.168.1.20/hook"))

    [field] = fields(body)
    assert field["property"] == "webhookURL"
    assert "FETCH_ALLOW_HOSTS" in field["message"]
    assert Packet.objects.count() == 0


def test_forge_submit_refuses_a_loopback_webhook_url(
    api_client: Client, organization: Organization, demo_template: Any, settings: Settings
) -> None:
    settings.FETCH_ALLOW_NETWORKS = []
    workflow = demo_workflow_create(organization=organization, template=demo_template)
    forge = workflow.webforms.order_by("position").first()
    body = graphql(
        api_client,
        FORGE_SUBMIT,
        {"forgeEid": forge.eid, "payload": {}, "webhookURL": "http://localhost/hook"},
    )

    [field] = fields(body)
    assert field["property"] == "webhookURL"
    assert "FETCH_ALLOW_HOSTS" in field["message"]
    assert Submission.objects.count() == 0


def test_the_admin_refuses_a_loopback_url_too(
    organization: Organization, settings: Settings
) -> None:
    settings.FETCH_ALLOW_NETWORKS = []
    endpoint = endpoint_url_set(organization=organization, url="https://hooks.example.com/in")
    admin_user = User.objects.create_superuser(username="root", password="x")
    client = Client()
    client.force_login(admin_user)

    response = client.post(
        reverse("admin:webhooks_webhookendpoint_change", args=[endpoint.pk]),
        {"url": "http://127.0.0.1:8000/hook", "public_key_pem": "", "disabled_at": ""},
    )

    assert response.status_code == 200  # the form again, with the error
    assert "FETCH_ALLOW_HOSTS" in response.content.decode()
    assert endpoint_get(organization=organization).url == "https://hooks.example.com/in"
