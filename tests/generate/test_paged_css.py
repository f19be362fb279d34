"""The spec's rule for element() in margin boxes, applied to stylesheet text."""

from __future__ import annotations

import pytest

from generate.engine.paged_css import MARGIN_BOXES, drop_combined_element_content


@pytest.mark.parametrize(
    ("css", "expected"),
    [
        (
            '@page { @top-center { content: "Fallback"; content: element(header) " extra"; } }',
            '@page { @top-center { content: "Fallback"; } }',
        ),
        # Any other value counts, a second element() and a comma too; the last declaration of a
        # block needs no semicolon; names are case-insensitive; comments are not values.
        (
            '@page{@top-left{content:"A";content:element(a) element(b)}}',
            '@page{@top-left{content:"A";}}',
        ),
        (
            '@page{@TOP-LEFT{content:"A";CONTENT: Element(a) /* c */ , "x";color:red}}',
            '@page{@TOP-LEFT{content:"A";color:red}}',
        ),
        # @page inside @media, with a selector, next to other margin boxes.
        (
            "@media print { @page :first { margin: 1in; @left-middle { content: counter(page)"
            ' element(a) } @bottom-right { content: "B" } } }',
            "@media print { @page :first { margin: 1in; @left-middle {} @bottom-right"
            ' { content: "B" } } }',
        ),
    ],
)
def test_content_combining_element_with_other_values_is_dropped(css, expected) -> None:
    assert drop_combined_element_content(css) == expected


@pytest.mark.parametrize(
    "css",
    [
        "@page { @top-center { content: element(header) } }",
        "@page { @top-center { content: element(header, first) !important; } }",
        "@page { @top-center { content: /* only */ element(header) } }",
        # Outside a margin box element() means nothing to WeasyPrint; it is left alone.
        'p::before { content: element(x) "y" }',
        ".header { position: running(header) } p { color: red }",
    ],
)
def test_everything_else_is_the_same_text(css) -> None:
    assert drop_combined_element_content(css) is css


def test_the_sixteen_margin_boxes() -> None:
    assert len(MARGIN_BOXES) == 16
    assert {"top-left-corner", "bottom-center", "left-middle", "right-bottom"} <= MARGIN_BOXES
