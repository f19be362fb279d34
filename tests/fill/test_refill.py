"""A filled PDF used as the template of a second fill (a user uploads an output as a new
template): the first fill's drawing stays under the second's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.engine.template_spec import TemplateSpec
from fill.engine import FillContext, fill_pdf, parse_fill_request
from tests.fill.test_base_shapes import make_base, page_words, spec_for


@pytest.mark.parametrize("incremental", [True, False], ids=["update", "rewrite"])
def test_a_filled_pdf_filled_again_keeps_both_fills(
    incremental: bool, context: FillContext
) -> None:
    base = make_base("contents-reference")
    spec = spec_for(base)
    # The second fill writes in a field of its own, lower on the page.
    moved = spec.fields[0]
    second_spec = replace(
        spec, fields=(replace(moved, rect=replace(moved.rect, y=moved.rect.y - 100)),)
    )
    context = replace(context, incremental=incremental)

    def fill(pdf: bytes, template: TemplateSpec, name: str) -> bytes:
        request = parse_fill_request({"data": {"name0": name}}, max_documents=1)
        return fill_pdf(template_pdf=pdf, spec=template, request=request, context=context)

    once = fill(base, spec, "Ada Lovelace")
    twice = fill(once, second_spec, "Charles Babbage")

    assert "Ada Lovelace" in page_words(once)[0]
    # Before: the second fill's form took the first one's resource name, so the first
    # fill's "Do" drew the second form and "Ada Lovelace" was gone.
    assert "Ada Lovelace" in page_words(twice)[0]
    assert "Charles Babbage" in page_words(twice)[0]
