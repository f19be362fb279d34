"""What the webform's author wrote, and numbers shown back, as the page's reader reads them (issue
49, items 3 and 5), in Chromium at a desktop and a phone width, in English, Arabic and Japanese
(and German and French for the numbers).

Item 3: on an Arabic page "Do you have pets?" read "?Do you have pets": the label took the page's
right-to-left direction. Each text the author wrote (labels, help, titles, the answers) is now
isolated (<bdi>, or dir="auto" for a paragraph), so its own characters say its direction: the
question mark is drawn right of the "D", measured in the browser on the drawn glyphs.

Item 5: "15,5" typed on a German page was stored as 15.5 (right), but shown back after Back and
on the answers page as "15.5", and a price as "$1,234.50". They are now written as the page's
language writes them (its decimal and grouping separators, Django's locale formats, the same
the page reads), and a price with its symbol where that language puts it.

Screenshots: test-artifacts/workflows/issue49-*-{desktop,phone}.png; axe finds nothing."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Organization
from templates_app.models import PdfTemplate
from tests.axe import axe_violations
from tests.browser import Tab
from tests.workflows.test_webform_browser import DESKTOP, form_tab, public_base, shoot  # noqa: F401
from workflows.definitions.versions import workflow_import
from workflows.models import WebformSubmission, Workflow

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

START = "/form/acme/pets"
QUESTION = "Do you have pets?"


def pets_workflow(organization: Organization, template: PdfTemplate) -> Workflow:
    definition = {
        "slug": "pets",
        "name": "Pets (household)",
        "webforms": [
            {
                "slug": "pets",
                "name": "Your pets?",
                "pages": [
                    {
                        "title": "About them?",
                        "fields": [
                            {"key": "pets", "type": "shortText", "label": QUESTION,
                             "required": True, "helpText": "Cats, dogs, fish (any)."},
                            {"key": "weight", "type": "number", "label": "Weight (kg)?",
                             "required": True},
                            {"key": "budget", "type": "dollar", "label": "Budget?",
                             "required": True},
                        ],
                    },
                    {
                        "title": "Anything else?",
                        "fields": [{"key": "notes", "type": "shortText", "label": "Notes?"}],
                    },
                ],
            }
        ],
        "documents": [
            {
                "template": {"eid": template.eid, "title": template.title},
                "title": "Pets form",
                "filename": "pets.pdf",
                "mappings": [{"alias": "title", "forge": "pets", "field": "pets"}],
            }
        ],
    }  # fmt: skip
    workflow, _ = workflow_import(organization=organization, data=definition, publish=True)
    return workflow


# Where the first and the last character of ``text`` in an element are drawn (their left edges).
EDGES = """([element, text]) => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, start = node.data.indexOf(text);
    if (start < 0) continue;
    const at = (offset) => {
      const range = document.createRange();
      range.setStart(node, offset);
      range.setEnd(node, offset + 1);
      return range.getBoundingClientRect().left;
    };
    return [at(start), at(start + text.length - 1)];
  }
  return null;
}"""


def reads_left_to_right(page: Any, selector: str, text: str) -> bool:
    """Whether ``text`` (the author's, left to right) in ``selector`` is drawn so: its first
    character left of its last ("Do you have pets?", not "?Do you have pets")."""
    found = page.evaluate(EDGES, [page.query_selector(selector), text])
    assert found is not None, (selector, text)
    first, last = found
    return first < last


def no_violations(tab: Tab) -> None:
    found = axe_violations(tab.page)
    assert found == [], found


@pytest.mark.parametrize("language", ["en", "ar", "ja"])
def test_the_authors_words_keep_their_own_direction(
    browser, public_base, organization, demo_template, language  # noqa: F811
) -> None:  # fmt: skip
    pets_workflow(organization, demo_template)
    tab = form_tab(browser, DESKTOP, f"{public_base}{START}", locale=language)
    page = tab.page
    assert page.get_attribute("html", "dir") == ("rtl" if language == "ar" else "ltr")

    # The label, its help, the page's titles: "?" after the words, drawn where they end.
    assert reads_left_to_right(page, "label[for=f-pets]", QUESTION)
    assert reads_left_to_right(page, "#f-pets-help", "Cats, dogs, fish (any).")
    assert reads_left_to_right(page, "#wf-title", "Your pets?")
    assert reads_left_to_right(page, ".wf-workflow", "Pets (household)")
    no_violations(tab)

    # Refused in the browser: the summary names the field by the author's words.
    page.click("#wf-next")
    page.wait_for_selector("#wf-summary:not([hidden])")
    assert reads_left_to_right(page, "#wf-summary li a", QUESTION)
    shoot(tab, f"issue49-3-labels-{language}")
    no_violations(tab)

    page.fill("[name=pets]", "Yes, a cat (Tom)")
    page.fill("[name=weight]", "4.5" if language != "ar" else "4,5")
    page.fill("[name=budget]", "20")
    page.click("#wf-next")
    page.wait_for_selector("[name=notes]")
    page.click("#wf-next")
    page.wait_for_selector("#wf-done-title")
    answers = "#wf-answers .wf-answer"
    assert reads_left_to_right(page, f"{answers}:nth-child(1) dt", QUESTION)
    assert reads_left_to_right(page, f"{answers}:nth-child(1) dd", "Yes, a cat (Tom)")
    shoot(tab, f"issue49-3-answers-{language}")
    no_violations(tab)
    tab.close()


def next_stores_the_numbers(page: Any) -> None:
    """Next from the first page: the second page shown, and the numbers stored as numbers."""
    page.click("#wf-next")
    page.wait_for_selector("[name=notes]")
    stored = WebformSubmission.objects.get().payload
    assert (stored["weight"], stored["budget"]) == (15.5, 1234.5)


@pytest.mark.parametrize(
    ("language", "weight", "budget", "back", "shown"),
    [
        ("de", "15,5", "1.234,5", ("15,5", "1234,50"), ("15,5", "1.234,50\xa0$")),
        ("fr", "15,5", "1 234,5", ("15,5", "1234,50"), ("15,5", "1\xa0234,50\xa0$")),
        ("ar", "15,5", "1234,5", ("15,5", "1234,50"), ("15,5", "1.234,50\xa0$")),
        ("ja", "15.5", "1,234.5", ("15.5", "1234.50"), ("15.5", "$1,234.50")),
        ("en", "15.5", "1234.5", ("15.5", "1234.50"), ("15.5", "$1,234.50")),
    ],
)
def test_numbers_are_shown_back_as_the_page_writes_them(
    browser, public_base, organization, demo_template, language, weight, budget, back, shown  # noqa: F811
) -> None:  # fmt: skip
    pets_workflow(organization, demo_template)
    tab = form_tab(browser, DESKTOP, f"{public_base}{START}", locale=language)
    page = tab.page
    page.fill("[name=pets]", "Tom")
    page.fill("[name=weight]", weight)
    page.fill("[name=budget]", budget)
    next_stores_the_numbers(page)

    # Back: the stored numbers, written the page's way (and read back the same when sent).
    page.click("#wf-back")
    page.wait_for_selector("[name=weight]")
    page.wait_for_selector("#wf-form[data-state=ready]")
    assert (page.input_value("[name=weight]"), page.input_value("[name=budget]")) == back
    if language in ("de", "ar", "ja"):
        shoot(tab, f"issue49-5-back-{language}")
    next_stores_the_numbers(page)
    page.click("#wf-next")
    page.wait_for_selector("#wf-answers")
    given = page.eval_on_selector_all(
        "#wf-answers .wf-answer",
        "rows => rows.map(r => [r.children[0].textContent.trim(), "
        "r.children[1].textContent.trim()])",
    )
    values = dict(given)
    assert (values["Weight (kg)?"], values["Budget?"]) == shown, given
    if language in ("de", "ar", "ja"):
        shoot(tab, f"issue49-5-answers-{language}")
        no_violations(tab)
    tab.close()
