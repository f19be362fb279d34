"""demo_setup, which scripts/run.sh calls: the demo organization, its admin, a development key
(one live at a time) and the demo template with every field type."""

import io

from django.core.management import call_command
from django.test import Client

from accounts.models import ApiKey
from core.engine.template_spec import FIELD_TYPES
from templates_app import services
from templates_app.models import PdfTemplate
from tests.conftest import basic_auth


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_demo_setup_revokes_the_previous_demo_key(db: None) -> None:
    first = dict(line.split("=", 1) for line in run("demo_setup").split())
    second = dict(line.split("=", 1) for line in run("demo_setup").split())

    assert first["DEMO_ADMIN_PASSWORD"]  # a new admin gets a password, shown once
    assert second["DEMO_ADMIN_PASSWORD"] == ""
    keys = ApiKey.objects.filter(organization__slug="demo")
    assert keys.count() == 2
    assert keys.filter(revoked_at__isnull=True).count() == 1
    old = Client(HTTP_AUTHORIZATION=basic_auth(first["DEMO_API_KEY"]))
    new = Client(HTTP_AUTHORIZATION=basic_auth(second["DEMO_API_KEY"]))
    body = '{"query":"{ currentUser { role } }"}'
    assert old.post("/graphql", data=body, content_type="application/json").status_code == 401
    assert new.post("/graphql", data=body, content_type="application/json").json() == {
        "data": {"currentUser": {"role": "owner"}}
    }


def test_demo_setup_publishes_a_template_with_every_field_type(db: None) -> None:
    values = dict(line.split("=", 1) for line in run("demo_setup").split())

    template = PdfTemplate.objects.get(eid=values["DEMO_TEMPLATE_EID"])
    spec = services.version_spec(
        services.template_version_select(template=template, version_number=None)
    )
    assert {f.type for f in spec.fields} == set(FIELD_TYPES)
    assert [a.alias for a in spec.arrays] == ["items", "prices"]
    run("demo_setup")
    assert PdfTemplate.objects.count() == 1
