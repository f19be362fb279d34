"""workflow_export and workflow_import: workflows kept in version control as JSON; and the demo
workflow demo_setup publishes."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts.models import Organization
from templates_app.engine.demo import build_demo_template
from templates_app.services import template_create_with_spec
from workflows.definitions.versions import workflow_export
from workflows.models import Submission, Workflow


def export(*args: str) -> str:
    out = io.StringIO()
    call_command("workflow_export", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_export_then_import_into_another_organization(
    demo_workflow: Workflow, other_organization: Organization, tmp_path: Path
) -> None:
    text = export("acme", "demo-onboarding")
    assert json.loads(text) == workflow_export(workflow=demo_workflow)
    path = tmp_path / "demo.json"
    export("acme", "demo-onboarding", "--output", str(path))
    assert path.read_text() == text

    # The other organization has a template of the same title: it stands in for acme's.
    pdf, spec = build_demo_template()
    theirs = template_create_with_spec(
        organization=other_organization, title="Demo", pdf=pdf, spec=spec, publish=True
    )
    out = io.StringIO()
    call_command("workflow_import", "globex", str(path), "--publish", stdout=out)

    copy = Workflow.objects.get(organization=other_organization)
    assert out.getvalue() == f"Created demo-onboarding ({copy.eid})\n"
    assert copy.documents.get().template == theirs
    assert copy.versions.count() == 1
    assert Client().get("/form/globex/demo-onboarding").status_code == 200


def test_a_reimport_replaces_the_working_version_and_keeps_webform_eids(
    demo_workflow: Workflow, tmp_path: Path
) -> None:
    data = json.loads(export("acme", "demo-onboarding"))
    eids = list(demo_workflow.webforms.values_list("eid", flat=True))
    data["webforms"][0]["pages"][0]["fields"][1]["label"] = "Email address"
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(data))

    out = io.StringIO()
    call_command("workflow_import", "acme", str(path), stdout=out)

    assert out.getvalue().startswith("Updated demo-onboarding")
    assert list(demo_workflow.webforms.values_list("eid", flat=True)) == eids
    email = demo_workflow.webforms.get(slug="about-you").fields.get(key="email")
    assert email.label == "Email address"
    assert demo_workflow.versions.count() == 1  # published only with --publish
    published = json.loads(export("acme", "demo-onboarding", "--published", "1"))
    assert published["webforms"][0]["pages"][0]["fields"][1]["label"] == "Email"


def test_an_import_with_a_problem_imports_nothing(
    demo_workflow: Workflow, tmp_path: Path, organization: Organization
) -> None:
    good = json.loads(export("acme", "demo-onboarding"))
    bad = {**good, "slug": "second", "webforms": []}
    path = tmp_path / "both.json"
    path.write_text(
        json.dumps({"format": "workflow-list/1", "workflows": [{**good, "slug": "first"}, bad]})
    )

    with pytest.raises(CommandError) as raised:
        call_command("workflow_import", "acme", str(path), stdout=io.StringIO())

    assert "webforms: A workflow needs at least one webform." in str(raised.value)
    assert list(Workflow.objects.values_list("slug", flat=True)) == ["demo-onboarding"]
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("workflow_import", "acme", str(tmp_path / "broken.json"))
    with pytest.raises(CommandError, match="No organization"):
        call_command("workflow_import", "nobody", str(path))
    with pytest.raises(CommandError, match="No workflow with slug 'ghost'"):
        export("acme", "ghost")
    with pytest.raises(CommandError, match="has no version 7"):
        export("acme", "demo-onboarding", "--published", "7")


def test_demo_setup_publishes_the_demo_workflow_and_prints_its_address(
    db: None, settings, tmp_path: Path
) -> None:
    settings.DATA_DIR = tmp_path / "data"

    def run() -> dict[str, str]:
        out = io.StringIO()
        call_command("demo_setup", stdout=out)
        return dict(line.split("=", 1) for line in shlex.split(out.getvalue()))

    first, second = run(), run()

    workflow = Workflow.objects.get(organization__slug="demo")
    assert first["DEMO_WORKFLOW_EID"] == second["DEMO_WORKFLOW_EID"] == workflow.eid
    assert first["DEMO_WORKFLOW_URL"] == "http://127.0.0.1:8000/form/demo/demo-onboarding"
    assert first["DEMO_WORKFLOW_PATH"] == "/form/demo/demo-onboarding"
    assert workflow.versions.count() == 1
    assert Workflow.objects.count() == 1
    page = Client().get(first["DEMO_WORKFLOW_PATH"])
    assert page.status_code == 200
    assert "Step 1 of 3: <bdi>Contact</bdi>" in page.content.decode()
    assert [w.name for w in workflow.webforms.all()] == ["About you", "Your order"]
    assert workflow.documents.get().template.eid == first["DEMO_TEMPLATE_EID"]
    assert not Submission.objects.exists()
