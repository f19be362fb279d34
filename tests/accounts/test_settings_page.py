"""The organization's API settings page: an owner changes, a member views, an outsider sees
nothing; every change refused leaves everything as it was."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from accounts.models import ApiKey, Organization, PayloadKeyPair, User
from accounts.payload_keys import payload_key_create
from accounts.services import api_key_create, member_add
from tests.conftest import basic_auth
from tests.templates_app.conftest import logged_in
from webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookSecret
from webhooks.services import endpoint_get, event_emit, secrets_current

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner_client(owner: User) -> Client:
    return logged_in(owner)


@pytest.fixture
def member_client(organization: Organization) -> Client:
    user = User.objects.create_user(username="mia")
    member_add(organization=organization, user=user, role="member")
    return logged_in(user)


@pytest.fixture
def outsider_client(other_organization: Organization) -> Client:
    user = User.objects.create_user(username="otto")
    member_add(organization=other_organization, user=user, role="owner")
    return logged_in(user)


def url(name: str, *args: str) -> str:
    return reverse(f"settings:{name}", args=["acme", *args])


def page(client: Client) -> str:
    response = client.get(url("page"))
    assert response.status_code == 200
    return response.content.decode()


# --- layout ---------------------------------------------------------------------------------------


def test_the_sections_of_accounts_and_webhooks_stand_in_one_order_with_a_link_each(
    owner_client: Client,
) -> None:
    html = page(owner_client)

    order = ["keys", "webhook", "encryption", "embedding", "log", "usage"]
    assert re.findall(r'<section class="card" id="(\w+)"', html) == order
    assert re.findall(r'<li><a href="#(\w+)">', html) == order
    # webhooks' part of Encryption stands inside accounts' section, after its own part.
    encryption = html.split('id="encryption"')[1].split("</section>")[0]
    assert encryption.index("Your requests to us") < encryption.index("Our webhooks to you")


# --- access ---------------------------------------------------------------------------------------


def test_the_page_needs_a_login(organization: Organization) -> None:
    response = Client().get(url("page"))

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/settings/acme/"


def test_the_login_page_logs_a_member_in_and_lands_on_their_settings(owner: User) -> None:
    owner.set_password("pw-settings-1234")
    owner.save()
    client = Client()

    form = client.get("/accounts/login/")
    response = client.post(
        "/accounts/login/", {"username": "olivia", "password": "pw-settings-1234"}
    )

    assert form.status_code == 200
    assert response["Location"] == "/settings/"
    assert client.get("/settings/")["Location"] == "/settings/acme/"


def test_an_outsider_gets_404_on_every_page_and_change(
    outsider_client: Client, organization: Organization, owner: User
) -> None:
    key, _ = api_key_create(organization=organization, kind="development")
    event_emit(organization=organization, action="weldCreate", data={})
    delivery = WebhookDelivery.objects.get()
    payload_key_create(organization=organization)

    assert outsider_client.get(url("page")).status_code == 404
    assert outsider_client.get(url("payload-key-download")).status_code == 404
    posts = [
        (url("key-create"), {"kind": "production"}),
        (url("key-revoke", key.eid), {}),
        (url("webhook-url"), {"url": "https://evil.example.com"}),
        (url("webhook-token"), {}),
        (url("webhook-secret"), {}),
        (url("webhook-test"), {}),
        (url("public-key"), {"remove": "1"}),
        (url("payload-key-create"), {}),
        (url("embed-origins"), {"origins": "https://evil.example.com"}),
        (url("delivery-resend", delivery.eid), {}),
    ]
    for path, data in posts:
        assert outsider_client.post(path, data).status_code == 404, path

    assert ApiKey.objects.filter(organization=organization).count() == 1
    assert key.__class__.objects.get(pk=key.pk).revoked_at is None
    assert endpoint_get(organization=organization).url == ""
    assert WebhookDelivery.objects.count() == 1
    organization.refresh_from_db()
    assert organization.embed_origins == []


def test_an_outsider_cannot_resend_another_organizations_delivery_from_their_own_page(
    outsider_client: Client, organization: Organization, other_organization: Organization
) -> None:
    event_emit(organization=organization, action="weldCreate", data={})
    theirs = WebhookDelivery.objects.get()

    path = reverse("settings:delivery-resend", args=["globex", theirs.eid])
    response = outsider_client.post(path)

    assert response.status_code == 404
    assert WebhookDelivery.objects.count() == 1
    assert theirs.eid not in outsider_client.get("/settings/globex/").content.decode()


def test_a_member_views_but_cannot_change(
    member_client: Client, organization: Organization, owner: User
) -> None:
    api_key_create(organization=organization, kind="development", name="ci")
    endpoint = endpoint_get(organization=organization)
    secret = secrets_current(organization=organization)[0].secret

    html = page(member_client)

    assert "you can view these settings" in html
    assert "ci" in html
    assert endpoint.token not in html
    assert secret not in html
    assert "Create key" not in html
    for name in ("key-create", "webhook-url", "webhook-secret", "embed-origins"):
        assert member_client.post(url(name), {"kind": "development"}).status_code == 403
    assert ApiKey.objects.count() == 1
    assert WebhookSecret.objects.count() == 1


# --- keys -----------------------------------------------------------------------------------------


def test_an_owner_creates_a_key_shown_once_that_works_then_revokes_it(
    owner_client: Client, organization: Organization
) -> None:
    response = owner_client.post(url("key-create"), {"kind": "production", "name": "billing"})

    html = response.content.decode()
    assert response.status_code == 200
    assert (
        response["Cache-Control"].startswith("no-store") or "no-store" in response["Cache-Control"]
    )
    key = ApiKey.objects.get(name="billing")
    raw_key = html.split('id="new-key-value" readonly value="')[1].split('"')[0]
    assert raw_key.startswith("prod_")
    assert key.kind == "production"
    assert raw_key not in page(owner_client)  # shown once
    api = Client(HTTP_AUTHORIZATION=basic_auth(raw_key))
    query = {"query": "{ currentUser { eid } }"}
    assert api.post("/graphql", query, "application/json").status_code == 200

    revoked = owner_client.post(url("key-revoke", key.eid))

    assert revoked.status_code == 302
    assert api.post("/graphql", query, "application/json").status_code == 401
    assert "revoked" in page(owner_client)


def test_a_bad_kind_is_refused_and_no_key_is_made(owner_client: Client) -> None:
    response = owner_client.post(url("key-create"), {"kind": "root"})

    assert response.status_code == 400
    assert "Use &#x27;development&#x27; or &#x27;production&#x27;." in response.content.decode()
    assert ApiKey.objects.count() == 0


def test_another_organizations_key_cannot_be_revoked_through_mine(
    owner_client: Client, other_organization: Organization
) -> None:
    theirs, _ = api_key_create(organization=other_organization, kind="development")

    assert owner_client.post(url("key-revoke", theirs.eid)).status_code == 404
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


# --- webhooks -------------------------------------------------------------------------------------


def test_an_owner_sets_the_url_rotates_token_and_secret(
    owner_client: Client, organization: Organization
) -> None:
    token = endpoint_get(organization=organization).token
    old_secret = secrets_current(organization=organization)[0].secret

    assert (
        owner_client.post(url("webhook-url"), {"url": "https://hooks.example.com/in"}).status_code
        == 302
    )
    owner_client.post(url("webhook-token"))
    owner_client.post(url("webhook-secret"))

    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.url == "https://hooks.example.com/in"
    assert endpoint.token != token
    current = [s.secret for s in secrets_current(organization=organization)]
    assert len(current) == 2
    assert current[1] == old_secret
    html = page(owner_client)
    assert endpoint.token in html
    assert "previous secret, signs until" in html


def test_a_url_that_is_not_http_is_refused_and_the_old_one_kept(
    owner_client: Client, organization: Organization
) -> None:
    owner_client.post(url("webhook-url"), {"url": "https://hooks.example.com/in"})

    response = owner_client.post(url("webhook-url"), {"url": "javascript:alert(1)"})

    assert response.status_code == 400
    assert "Enter an http or https URL." in response.content.decode()
    assert endpoint_get(organization=organization).url == "https://hooks.example.com/in"


def section_html(html: str, anchor: str) -> str:
    """The section ``<section ... id="anchor">`` of the page, up to its end."""
    found = re.search(rf'<section class="card" id="{anchor}".*?</section>', html, re.S)
    assert found is not None, anchor
    return found.group(0)


def test_a_refused_url_shows_its_message_by_the_url_and_nothing_in_the_other_sections(
    owner_client: Client,
) -> None:
    response = owner_client.post(url("webhook-url"), {"url": "ftp://hooks.example.com/in"})

    assert response.status_code == 400
    html = response.content.decode()
    assert "dict_keys" not in html
    for other in ("keys", "encryption", "embedding", "log"):
        assert 'class="error"' not in section_html(html, other), other
    webhook = section_html(html, "webhook")
    assert re.findall(r'<p class="error"[^>]*>(.*?)</p>', webhook) == [
        "Enter an http or https URL."
    ]
    assert 'aria-describedby="webhook-url-error webhook-url-help" aria-invalid="true"' in webhook
    assert 'id="webhook-url-error"' in webhook
    assert 'value="ftp://hooks.example.com/in"' in webhook  # what was typed, to correct


def test_each_refusal_shows_beside_its_own_control(owner_client: Client) -> None:
    cases = [
        ("key-create", {"kind": "development", "name": "x" * 101}, "keys", "key-name-error"),
        ("key-create", {"kind": "root"}, "keys", "key-kind-error"),
        ("embed-origins", {"origins": "not an origin"}, "embedding", "origins-error"),
        ("public-key", {"public_key": "garbage"}, "encryption", "public-key-error"),
    ]
    for name, data, anchor, error_id in cases:
        html = owner_client.post(url(name), data).content.decode()
        errors = re.findall(r'<p class="error" id="([^"]+)"', html)
        assert errors == [error_id], name
        assert f'id="{error_id}"' in section_html(html, anchor)
        assert f'aria-describedby="{error_id}"' in html


def test_each_refusal_is_linked_from_the_error_summary_to_an_element_of_the_page(
    owner_client: Client,
) -> None:
    cases = [
        ("key-create", {"kind": "development", "name": "x" * 101}, "key-name"),
        ("key-create", {"kind": "root"}, "kind-development"),
        ("embed-origins", {"origins": "not an origin"}, "origins"),
        ("public-key", {"public_key": "garbage"}, "public-key-text"),
        ("webhook-url", {"url": "ftp://hooks.example.com/in"}, "webhook-url"),
    ]
    for name, data, target in cases:
        html = owner_client.post(url(name), data).content.decode()
        summary = html.split('id="error-summary"', 1)[1].split("</div>", 1)[0]
        assert re.findall(r'<a href="#([^"]+)"', summary) == [target], name
        assert f'id="{target}"' in html, name
        assert "<title>Error: " in html


def test_the_test_button_logs_a_webhook_test(
    owner_client: Client, organization: Organization, django_capture_on_commit_callbacks: Callable
) -> None:
    owner_client.post(url("webhook-url"), {"url": "https://hooks.example.com/in"})
    with django_capture_on_commit_callbacks(execute=False):
        response = owner_client.post(url("webhook-test"))

    delivery = WebhookDelivery.objects.get()
    assert response.status_code == 302
    assert (delivery.event.action, delivery.status) == ("webhookTest", "pending")
    assert delivery.requested_by == "olivia (settings page)"


def test_the_log_filters_and_resends(owner_client: Client, organization: Organization) -> None:
    event_emit(organization=organization, action="weldCreate", data={})
    event_emit(organization=organization, action="signerComplete", data={})
    signer = WebhookDelivery.objects.get(event__action="signerComplete")

    everything = page(owner_client)
    filtered = owner_client.get(url("page"), {"action": "signerComplete"}).content.decode()
    resent = owner_client.post(url("delivery-resend", signer.eid))

    assert everything.count('data-delivery="') == 2
    assert filtered.count('data-delivery="') == 1
    assert f'data-delivery="{signer.eid}"' in filtered
    assert resent.status_code == 302
    assert WebhookDelivery.objects.filter(event=signer.event).count() == 2


# --- keys for encryption --------------------------------------------------------------------------


def pem_of(key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def test_an_owner_uploads_the_integrators_public_key(
    owner_client: Client, organization: Organization
) -> None:
    pem = pem_of(rsa.generate_private_key(public_exponent=65537, key_size=2048))

    upload = SimpleUploadedFile("key.pem", pem, content_type="application/x-pem-file")
    response = owner_client.post(url("public-key"), {"public_key_file": upload})

    assert response.status_code == 302
    assert endpoint_get(organization=organization).public_key_pem == pem.decode()
    owner_client.post(url("public-key"), {"remove": "1"})
    assert endpoint_get(organization=organization).public_key_pem == ""


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: b"hello", "Not a PEM public key"),
        (
            lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
            "This is a private key",
        ),
        (
            lambda: pem_of(rsa.generate_private_key(public_exponent=65537, key_size=1024)),  # noqa: S505
            "1024 bits",
        ),
        (lambda: pem_of(ec.generate_private_key(ec.SECP256R1())), "must be an RSA key"),
    ],
    ids=["garbage", "private", "short", "not-rsa"],
)
def test_a_key_that_is_not_an_rsa_public_key_is_refused(
    owner_client: Client, organization: Organization, make: Callable[[], bytes], message: str
) -> None:
    response = owner_client.post(url("public-key"), {"public_key": make().decode()})

    assert response.status_code == 400
    assert message in response.content.decode()
    assert endpoint_get(organization=organization).public_key_pem == ""


def test_the_inbound_public_key_is_made_and_downloaded(
    owner_client: Client, member_client: Client, organization: Organization
) -> None:
    assert owner_client.get(url("payload-key-download")).status_code == 404

    owner_client.post(url("payload-key-create"))
    download = member_client.get(url("payload-key-download"))

    assert download.status_code == 200
    assert download["Content-Disposition"] == 'attachment; filename="acme-public-key.pem"'
    assert download.content.decode() == PayloadKeyPair.objects.get().public_pem
    assert b"PRIVATE" not in download.content


# --- embedding ------------------------------------------------------------------------------------


def test_an_owner_saves_embedding_origins_and_a_bad_one_changes_nothing(
    owner_client: Client, organization: Organization
) -> None:
    owner_client.post(
        url("embed-origins"), {"origins": "https://app.example.com/\r\nhttp://localhost:3000"}
    )
    refused = owner_client.post(
        url("embed-origins"), {"origins": "https://ok.example.com\nnot an origin"}
    )

    organization.refresh_from_db()
    assert organization.embed_origins == ["https://app.example.com", "http://localhost:3000"]
    assert refused.status_code == 400
    assert "not an origin: " in refused.content.decode()


def test_usage_per_key_per_day_is_shown(
    owner_client: Client,
    organization: Organization,
    api_key: str,
    client_for: Callable[[str], Client],
) -> None:
    for _ in range(3):
        client_for(api_key).post(
            "/graphql", {"query": "{ currentUser { eid } }"}, "application/json"
        )

    html = page(owner_client)

    usage = html.split('id="usage-table"')[1]
    assert '<td class="num">3</td>' in usage
