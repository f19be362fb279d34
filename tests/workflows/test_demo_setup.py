"""demo_setup, which scripts/run.sh calls: the demo organization, its admin, a development key
that survives restarts (kept in a 0600 file under DATA_DIR) and the demo template with every
field type."""

import io
import json
import shlex
import stat
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from accounts.models import ApiKey, Organization
from core.engine.template_spec import FIELD_TYPES
from templates_app import services
from templates_app.engine.demo import build_demo_template
from templates_app.models import PdfTemplate
from tests.conftest import basic_auth

CURRENT_USER = '{"query":"{ currentUser { role } }"}'


@pytest.fixture(autouse=True)
def _data_dir_in_tmp(settings: pytest.FixtureRequest, tmp_path: Path) -> None:
    settings.DATA_DIR = tmp_path / "data"


def run_demo_setup() -> dict[str, str]:
    """The variables demo_setup prints, read as the shell's eval reads them."""
    out = io.StringIO()
    call_command("demo_setup", stdout=out)
    return dict(line.split("=", 1) for line in shlex.split(out.getvalue()))


def graphql_role(raw_key: str) -> tuple[int, dict]:
    response = Client(HTTP_AUTHORIZATION=basic_auth(raw_key)).post(
        "/graphql", data=CURRENT_USER, content_type="application/json"
    )
    return response.status_code, response.json()


def test_a_restart_keeps_the_first_key_working(db: None, tmp_path: Path) -> None:
    first = run_demo_setup()
    second = run_demo_setup()

    assert second["DEMO_API_KEY"] == first["DEMO_API_KEY"]
    assert (first["DEMO_API_KEY_IS_NEW"], second["DEMO_API_KEY_IS_NEW"]) == ("1", "")
    assert graphql_role(first["DEMO_API_KEY"]) == (
        200,
        {"data": {"currentUser": {"role": "owner"}}},
    )
    fill = Client(HTTP_AUTHORIZATION=basic_auth(first["DEMO_API_KEY"])).post(
        f"/api/v1/fill/{first['DEMO_TEMPLATE_EID']}.pdf",
        data=json.dumps({"data": {"email": "ada@example.com"}}),
        content_type="application/json",
    )
    assert fill.status_code == 200
    assert fill.content.startswith(b"%PDF-")
    assert ApiKey.objects.filter(organization__slug="demo").count() == 1


def test_it_names_the_demo_organization_by_slug_and_eid(db: None) -> None:
    """run.sh prints both: workflows' addresses and weld(organizationSlug:) use the slug."""
    values = run_demo_setup()

    organization = Organization.objects.get(eid=values["DEMO_ORG_EID"])
    assert values["DEMO_ORG_SLUG"] == organization.slug == "demo"
    assert values["DEMO_WORKFLOW_PATH"].startswith(f"/form/{organization.slug}/")


def test_the_key_file_is_readable_by_its_owner_only(db: None, tmp_path: Path) -> None:
    values = run_demo_setup()

    path = Path(values["DEMO_API_KEY_FILE"])
    assert path == tmp_path / "data" / "demo-api-key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == values["DEMO_API_KEY"] + "\n"
    # Only the hash is in the database, as for every key.
    stored = ApiKey.objects.get(organization__slug="demo")
    assert values["DEMO_API_KEY"] not in {stored.key_hash, stored.prefix}


def test_a_missing_key_file_gives_a_new_key_and_revokes_the_old(db: None) -> None:
    first = run_demo_setup()
    Path(first["DEMO_API_KEY_FILE"]).unlink()

    second = run_demo_setup()

    assert second["DEMO_API_KEY"] != first["DEMO_API_KEY"]
    assert second["DEMO_API_KEY_IS_NEW"] == "1"
    assert graphql_role(first["DEMO_API_KEY"])[0] == 401
    assert graphql_role(second["DEMO_API_KEY"])[0] == 200
    assert stat.S_IMODE(Path(second["DEMO_API_KEY_FILE"]).stat().st_mode) == 0o600


def test_a_key_file_whose_key_was_revoked_is_replaced(db: None) -> None:
    first = run_demo_setup()
    ApiKey.objects.update(revoked_at="2020-01-01T00:00:00Z")

    second = run_demo_setup()

    assert second["DEMO_API_KEY"] != first["DEMO_API_KEY"]
    assert Path(second["DEMO_API_KEY_FILE"]).read_text().strip() == second["DEMO_API_KEY"]
    assert graphql_role(second["DEMO_API_KEY"])[0] == 200


def test_a_key_file_with_a_loose_mode_is_rewritten_0600(db: None) -> None:
    first = run_demo_setup()
    path = Path(first["DEMO_API_KEY_FILE"])
    path.write_text("not-a-key\n")
    path.chmod(0o644)

    second = run_demo_setup()

    assert second["DEMO_API_KEY_IS_NEW"] == "1"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_admin_password_is_printed_only_when_the_admin_is_created(db: None) -> None:
    first = run_demo_setup()
    second = run_demo_setup()

    assert first["DEMO_ADMIN_USER"] == second["DEMO_ADMIN_USER"] == "admin"
    assert len(first["DEMO_ADMIN_PASSWORD"]) == 16
    assert second["DEMO_ADMIN_PASSWORD"] == ""
    assert second["DEMO_ADMIN_HAS_PASSWORD"] == "1"
    assert Client().login(username="admin", password=first["DEMO_ADMIN_PASSWORD"])


def test_demo_setup_publishes_a_template_with_every_field_type(db: None) -> None:
    values = run_demo_setup()

    template = PdfTemplate.objects.get(eid=values["DEMO_TEMPLATE_EID"])
    spec = services.version_spec(
        services.template_version_select(template=template, version_number=None)
    )
    assert {f.type for f in spec.fields} == set(FIELD_TYPES)
    assert [a.alias for a in spec.arrays] == ["items", "prices"]
    run_demo_setup()
    assert PdfTemplate.objects.count() == 1


def test_the_rate_limit_of_the_demo_key_is_printed(db: None, settings) -> None:
    settings.RATE_LIMIT_DEVELOPMENT = 2

    assert run_demo_setup()["DEMO_API_KEY_RATE_LIMIT"] == "2 requests/s"


def test_the_demo_signing_link_and_packet_request_work(db: None) -> None:
    from esign.models import Packet

    printed = run_demo_setup()
    again = run_demo_setup()

    # One open demo packet across restarts; each start prints a fresh link to its first signer.
    assert Packet.objects.filter(name="Demo packet").count() == 1
    assert again["DEMO_SIGNING_PATH"] != printed["DEMO_SIGNING_PATH"]
    for variables in (printed, again):
        page = Client().get(variables["DEMO_SIGNING_PATH"])
        assert page.status_code == 200
        assert b"Demo packet" in page.content

    body = Path(printed["DEMO_PACKET_REQUEST_FILE"]).read_bytes()
    created = Client(HTTP_AUTHORIZATION=basic_auth(printed["DEMO_API_KEY"])).post(
        "/graphql", data=body, content_type="application/json"
    )
    packet = created.json()["data"]["createEtchPacket"]
    assert packet["status"] == "sent"
    signers = packet["documentGroup"]["signers"]
    assert [(s["aliasId"], s["signActionType"]) for s in signers] == [
        ("client", "embedded"),
        ("provider", "email"),
    ]


def test_the_demo_is_found_by_its_eids_not_by_name(db: None, settings) -> None:
    """A packet made with the printed request is also named "Demo packet", and anyone may title
    a template like the demo's: the next start still links to the demo's own objects."""
    from esign.models import Packet, Signer

    first = run_demo_setup()
    demo_packet = Packet.objects.get(name="Demo packet")
    created = Client(HTTP_AUTHORIZATION=basic_auth(first["DEMO_API_KEY"])).post(
        "/graphql",
        data=Path(first["DEMO_PACKET_REQUEST_FILE"]).read_bytes(),
        content_type="application/json",
    )
    users_packet = created.json()["data"]["createEtchPacket"]["eid"]
    pdf, spec = build_demo_template()
    services.template_create_with_spec(
        organization=PdfTemplate.objects.get(eid=first["DEMO_TEMPLATE_EID"]).organization,
        title="Demo: every field type",
        pdf=pdf,
        spec=spec,
        publish=True,
    )

    again = run_demo_setup()

    assert again["DEMO_TEMPLATE_EID"] == first["DEMO_TEMPLATE_EID"]
    signer_eid = again["DEMO_SIGNING_PATH"].split("?")[0].rstrip("/").rsplit("/", 1)[-1]
    signer = Signer.objects.select_related("packet").get(eid=signer_eid)
    assert signer.packet == demo_packet
    assert signer.packet.eid != users_packet
    assert Packet.objects.filter(name="Demo packet").count() == 2
    kept = json.loads((settings.DATA_DIR / "demo-objects.json").read_text())
    assert kept == {"packet": demo_packet.eid, "template": first["DEMO_TEMPLATE_EID"]}
