"""The admin as one product: sections named for people, example data with a curl call on the
template's page, duplicating a template, the organization preselected in the upload form."""

from __future__ import annotations

import json
import shlex
from urllib.parse import urlsplit

from django.test import Client
from django.urls import reverse

from accounts.models import User
from templates_app import services
from templates_app.engine.describe import example_data


def test_the_admin_index_names_the_sections_for_people(db: None) -> None:
    admin = User.objects.create_superuser(username="root", password="pw-root-123456789")
    client = Client()
    client.force_login(admin)

    page = client.get(reverse("admin:index")).content.decode()

    for section in ("PDF templates", "Accounts", "E-signatures", "Workflows", "Webhooks"):
        assert f">{section}</a>" in page, section
    for raw in ("Templates_App", "Templates_app", "Esign"):
        assert raw not in page


def test_the_template_page_shows_example_data_and_a_curl_call(
    member_client: Client, fw9_template, settings
) -> None:
    settings.PUBLIC_BASE_URL = "https://docs.example.test"
    response = member_client.get(
        reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    )

    assert response.status_code == 200
    call = response.context["example_call"]
    data = example_data(services.version_spec(services.working_version(fw9_template)))
    assert json.loads(call.data_json) == data
    command = shlex.split(call.curl.replace("\\\n", " "))
    assert command[:8] == [
        "curl", "-s", "-u", "YOUR_API_KEY:", "-H", "Content-Type: application/json",
        "-o", "filled.pdf",
    ]  # fmt: skip
    assert command[8] == "-d"
    assert json.loads(command[9]) == {"data": data}
    # Never published: the call fills the working version, whose example data this is.
    assert (
        command[10]
        == f"https://docs.example.test/api/v1/fill/{fw9_template.eid}.pdf?versionNumber=-1"
    )
    page = response.content.decode()
    assert 'id="example-curl"' in page
    assert "Copy the curl call" in page


def test_the_curl_call_of_a_template_published_as_is_fills_the_default_version(
    member_client: Client, fw9_template
) -> None:
    services.template_publish(template=fw9_template)

    response = member_client.get(
        reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    )

    url = shlex.split(response.context["example_call"].curl.replace("\\\n", " "))[-1]
    assert url.endswith(f"/api/v1/fill/{fw9_template.eid}.pdf")


def test_the_curl_call_fills_the_template_with_a_real_key(
    member_client: Client, fw9_template, api_key: str, client_for
) -> None:
    response = member_client.get(
        reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    )
    command = shlex.split(response.context["example_call"].curl.replace("\\\n", " "))
    url = urlsplit(command[10])

    filled = client_for(api_key).post(
        f"{url.path}?{url.query}", command[9], content_type="application/json"
    )

    assert filled.status_code == 200, filled.content[:500]
    assert filled["Content-Type"] == "application/pdf"


def test_outsiders_do_not_see_the_example_call(outsider_client: Client, fw9_template) -> None:
    response = outsider_client.get(
        reverse("admin:templates_app_pdftemplate_change", args=[fw9_template.pk])
    )

    assert response.status_code == 302  # the admin's "does not exist" redirect
    assert b"example-curl" not in response.content
