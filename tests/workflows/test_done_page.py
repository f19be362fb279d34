"""The end of a workflow (issue 24, item 5): the last page sums up the answers beside the
documents, the zip has a clean name, and the demo promises no email it does not send."""

from __future__ import annotations

import re

from django.test import Client

from core.engine.archive import clean_filename
from tests.workflows.test_pages import ORDER, START, STEP_1, STEP_2, forge
from workflows.models import Submission, Workflow
from workflows.submissions.links import continue_token


def test_the_last_page_sums_up_the_answers_and_the_zip_is_named_cleanly(
    demo_workflow: Workflow,
) -> None:
    client = Client()
    client.post(START, {**STEP_1, "forge": forge(demo_workflow, "about-you")})
    submission = Submission.objects.get()
    url = f"{START}/{submission.eid}?token={continue_token(submission)}"
    client.post(url, {**STEP_2, "forge": forge(demo_workflow, "about-you")})
    done = client.post(url, {**ORDER, "forge": forge(demo_workflow, "order")})

    html = done.content.decode()
    assert "Thank you" in html
    assert 'id="wf-answers"' in html
    answers = re.findall(r"<dt><bdi>([^<]*)</bdi></dt><dd><bdi>([^<]*)</bdi></dd>", html)
    assert ("Full name", "Ada Lovelace") in answers
    assert ("Email", "ada@example.com") in answers
    assert ("Home address", "12 Analytical Way, Boston, MA 02110") in answers
    assert ("Social security number", "•••-••-6789") in answers
    assert "123456789" not in html
    assert ("Amount", "$99.50") in answers
    assert ("Quantity", "2") in answers

    zip_url = re.search(r'href="([^"]+)" id="wf-zip"', html).group(1).replace("&amp;", "&")
    response = client.get(zip_url)
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        'attachment; filename="Demo onboarding - Ada Lovelace.zip"'
    )


def test_clean_file_names() -> None:
    assert (
        clean_filename("Demo: onboarding - Ada Lovelace", "x") == "Demo onboarding - Ada Lovelace"
    )
    assert clean_filename('a/b\\c"d', "x") == "a b c d"
    assert clean_filename(":::", "fallback") == "fallback"


def test_the_demo_promises_no_copy_by_email(demo_workflow: Workflow) -> None:
    html = Client().get(START).content.decode()
    assert "send a copy" not in html
    assert "Only to reach you about this order." in html
