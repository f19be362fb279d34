"""Issue 37's second walk: a webform save that completes a submission, read from
``webform_save`` into every file the project owns (tests/walks.py says how a walk is counted),
through forgeSubmit (the demo workflow's last webform) and through a webform page's post that
starts a signing step. Issue 53's goal for the page is at most ``tests.walks.GOAL`` returns;
until a walk reaches it the test holds the figure reached (a ratchet). ``bench/walks.py``
prints the walks whole.

Each walk is measured on the second of two like calls (the warm-up): a walk counts the code as it
runs, and the first fill in a process also loads its font faces (six more steps, five more
returns), which a fill after another test's does not. Warmed, the figure is the same whichever
tests ran before it in the process."""

from __future__ import annotations

from typing import Any

from django.test import Client

from accounts.models import Organization
from templates_app.models import PdfTemplate
from tests.walks import Walk, check_walk
from tests.workflows.conftest import ABOUT_YOU_1, ABOUT_YOU_2, FORGE_SUBMIT, ORDER, forges
from tests.workflows.test_signing_step import nda
from workflows.models import Submission, Workflow


def test_forge_submit_completing_a_submission_is_a_short_walk(
    demo_workflow: Workflow, graphql: Any
) -> None:
    f = forges(demo_workflow)
    payload = {**ABOUT_YOU_1, **ABOUT_YOU_2}

    def about_you() -> str:
        first = graphql(FORGE_SUBMIT, forgeEid=f["about-you"], payload=payload, complete=True)
        return str(first["data"]["forgeSubmit"]["weldData"]["eid"])

    def order(weld_data: str) -> Any:
        return graphql(
            FORGE_SUBMIT, forgeEid=f["order"], weldDataEid=weld_data, payload=ORDER, complete=True
        )

    order(about_you())  # the warm-up (module docstring)
    weld_data = about_you()
    with Walk("webform_save") as walk:
        last = order(weld_data)

    assert last["data"]["forgeSubmit"]["weldData"]["isComplete"] is True, last
    # Not at the goal: most returns are the fill's, inside the engines (fill/engine, core/engine).
    # The fill body's model (issue 53, item 1) adds two returns here and on the page's walk: the
    # parse goes fill/engine/payload -> core/engine/wire_models -> fill/engine/request_model's
    # validator -> wire_models -> payload.
    # The fill's page form goes through core.engine.pdf.PageOverlays (a name of its own on the
    # page, 3504716): two returns more here and on the page's walk, for one place that names it.
    check_walk(walk, at_most=107)


def test_a_page_that_starts_a_signing_step_is_a_short_walk(
    organization: Organization, demo_template: PdfTemplate
) -> None:
    workflow = nda(organization, demo_template)
    page = {"forge": workflow.webforms.get().eid, "page": "0", "name.firstName": "Ada",
            "name.lastName": "Lovelace", "email": "ada@example.com"}  # fmt: skip

    Client().post("/form/acme/nda", page)  # the warm-up (module docstring)
    with Walk("webform_save") as walk:  # a new submission, complete: its packet is sent
        done = Client().post("/form/acme/nda", page)

    assert Submission.objects.count() == 2
    assert Submission.objects.latest("id").status == "ready-to-sign", done.content
    # Not at the goal: most returns are the fill's, inside the engines (fill/engine, core/engine).
    check_walk(walk, at_most=106)
