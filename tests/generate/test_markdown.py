"""Markdown mode: the element array, the Markdown it renders (CommonMark lists, GFM tables and
strikethrough, safe links and images, no injected markup), styles and fonts, in the PDF.

Table elements are in test_markdown_tables.py; the logo, timestamp and page settings in
test_markdown_page.py. The helpers here are shared with them."""

from __future__ import annotations

import base64
import io
import re

import pytest
from PIL import Image

from core.engine.fonts import load_catalog
from generate.engine.markdown_doc import markdown_to_html
from tests.fixtures import HTML
from tests.generate.conftest import (
    fonts,
    generate_pdf,
    layout_texts,
    page_image,
    page_texts,
    reader,
    word,
)

pytestmark = pytest.mark.django_db

FIRA = {
    "regular": HTML / "weasyprint-report" / "FiraSans-Regular.ttf",
    "bold": HTML / "weasyprint-report" / "FiraSans-Bold.ttf",
    "italic": HTML / "weasyprint-report" / "FiraSans-Italic.ttf",
    # No bold italic in the fixtures: the light italic stands in for it.
    "bold_italic": HTML / "weasyprint-report" / "FiraSans-LightItalic.ttf",
}


def png(color: tuple[int, int, int], width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, "PNG")
    return out.getvalue()


def data_uri(data: bytes, media_type: str = "image/png") -> str:
    return f"data:{media_type};base64," + base64.b64encode(data).decode()


# -- elements -----------------------------------------------------------------------------------


def test_label_heading_and_content_in_order(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        {
            "data": [
                {"label": "First label", "heading": "Big heading", "content": "Body text"},
                {"label": "Second label"},
            ],
            "includeTimestamp": False,
            "logo": False,
        },
    )

    lines = [line.strip() for line in layout_texts(pdf)[0].splitlines() if line.strip()]
    assert lines == ["First label", "Big heading", "Body text", "Second label"]
    label, heading, body = word(pdf, "label"), word(pdf, "heading"), word(pdf, "text")
    assert heading.y_max - heading.y_min > 1.3 * (body.y_max - body.y_min)
    assert label.y_max - label.y_min == pytest.approx(body.y_max - body.y_min, abs=0.5)
    assert {"Noto-Sans-Bold", "Noto-Sans"} <= fonts(pdf)


def test_markdown_content_features(production_client) -> None:
    image = data_uri(png((0, 128, 0), 40, 40))
    content = (
        "# Title one\n\n## Title two\n\nSome **bold** and *italic* and __strong__ text.\n\n"
        "- first bullet\n- second bullet\n\n1. one\n2. two\n\n"
        "> A quoted line\n\n"
        "| Name | Score |\n|:-----|------:|\n| Ada | 10 |\n| Bob | 9 |\n\n"
        f"A [link](https://example.com/page) and an image ![green]({image}).\n\n"
        "```\nfenced <code> block\n```\n"
    )
    pdf = generate_pdf(production_client, {"data": [{"content": content}], "logo": False})

    text = layout_texts(pdf)[0]
    for expected in (
        "Title one", "Title two", "Some bold and italic and strong text.",
        "first bullet", "second bullet", "A quoted line", "Ada", "Score",
        "fenced <code> block",
    ):  # fmt: skip
        assert expected in text
    assert re.search(r"•\s+first bullet", text)
    assert re.search(r"1\.\s+one", text)
    used = fonts(pdf)
    assert {"Noto-Sans-Bold", "Noto-Sans-Italic", "Liberation-Mono"} <= used
    page = reader(pdf).pages[0]
    uris = [a.get_object()["/A"]["/URI"] for a in page["/Annots"]]
    assert uris == ["https://example.com/page"]
    assert len(page.images) == 1
    assert word(pdf, "one").y_max - word(pdf, "one").y_min > 1.5 * (
        word(pdf, "bullet").y_max - word(pdf, "bullet").y_min
    )


# CommonMark 0.31.2 (spec.commonmark.org), sections "List items" and "Lists": examples with
# their input and the HTML the spec expects, copied literally. Nesting depends on the column of
# an item's content, not on four-space steps: two spaces nest under "- ", three under "1. ".
COMMONMARK_LIST_EXAMPLES = [
    # 296: each item indented by two spaces is a child of the one above.
    (
        296,
        "- foo\n  - bar\n    - baz\n      - boo\n",
        "<ul>\n<li>foo\n<ul>\n<li>bar\n<ul>\n<li>baz\n<ul>\n<li>boo</li>\n</ul>\n</li>\n"
        "</ul>\n</li>\n</ul>\n</li>\n</ul>\n",
    ),
    # 297: one space less than the content column is not enough: four siblings.
    (
        297,
        "- foo\n - bar\n  - baz\n   - boo\n",
        "<ul>\n<li>foo</li>\n<li>bar</li>\n<li>baz</li>\n<li>boo</li>\n</ul>\n",
    ),
    # 298 and 299: under "10) " the content starts at column 4, so four spaces nest, three do not.
    (
        298,
        "10) foo\n    - bar\n",
        '<ol start="10">\n<li>foo\n<ul>\n<li>bar</li>\n</ul>\n</li>\n</ol>\n',
    ),
    (
        299,
        "10) foo\n   - bar\n",
        '<ol start="10">\n<li>foo</li>\n</ol>\n<ul>\n<li>bar</li>\n</ul>\n',
    ),
    # 300: a list item may start with a list.
    (300, "- - foo\n", "<ul>\n<li>\n<ul>\n<li>foo</li>\n</ul>\n</li>\n</ul>\n"),
    # 303 and 304: another bullet character or delimiter starts a new list.
    (
        303,
        "- foo\n- bar\n+ baz\n",
        "<ul>\n<li>foo</li>\n<li>bar</li>\n</ul>\n<ul>\n<li>baz</li>\n</ul>\n",
    ),
    (
        304,
        "1. foo\n2. bar\n3) baz\n",
        '<ol>\n<li>foo</li>\n<li>bar</li>\n</ol>\n<ol start="3">\n<li>baz</li>\n</ol>\n',
    ),
    # 312: items indented by less than their parent's content column stay siblings.
    (
        312,
        "- a\n - b\n  - c\n   - d\n  - e\n - f\n- g\n",
        "<ul>\n<li>a</li>\n<li>b</li>\n<li>c</li>\n<li>d</li>\n<li>e</li>\n<li>f</li>\n"
        "<li>g</li>\n</ul>\n",
    ),
    # 318: a blank line between items makes the list loose (paragraphs in the items).
    (
        318,
        "- a\n- b\n\n  c\n- d\n",
        "<ul>\n<li>\n<p>a</p>\n</li>\n<li>\n<p>b</p>\n<p>c</p>\n</li>\n<li>\n<p>d</p>\n"
        "</li>\n</ul>\n",
    ),
    # 321: a paragraph indented to the nested item's content belongs to that item.
    (
        321,
        "- a\n  - b\n\n    c\n- d\n",
        "<ul>\n<li>a\n<ul>\n<li>\n<p>b</p>\n<p>c</p>\n</li>\n</ul>\n</li>\n<li>d</li>\n</ul>\n",
    ),
    # 328: two-space nested lists under the items of a loose outer list.
    (
        328,
        "- a\n  - b\n  - c\n\n- d\n  - e\n  - f\n",
        "<ul>\n<li>\n<p>a</p>\n<ul>\n<li>b</li>\n<li>c</li>\n</ul>\n</li>\n<li>\n<p>d</p>\n"
        "<ul>\n<li>e</li>\n<li>f</li>\n</ul>\n</li>\n</ul>\n",
    ),
]


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [pytest.param(md, out, id=f"example-{n}") for n, md, out in COMMONMARK_LIST_EXAMPLES],
)
def test_lists_nest_as_the_commonmark_spec_examples(markdown: str, expected: str) -> None:
    assert markdown_to_html(markdown) == expected


def test_two_space_nested_lists_are_indented_in_the_pdf(production_client) -> None:
    content = "- Fruit\n  - Apple\n  - Pear\n- Vegetables\n  1. Leek\n  2. Kale\n"
    pdf = generate_pdf(
        production_client,
        {"data": [{"content": content}], "logo": False, "includeTimestamp": False},
    )

    text = layout_texts(pdf)[0]
    assert re.search(r"•\s+Fruit", text)
    assert re.search(r"◦\s+Apple", text)  # a nested bullet list has its own marker
    assert re.search(r"2\.\s+Kale", text)
    outer = [word(pdf, t).x_min for t in ("Fruit", "Vegetables")]
    inner = [word(pdf, t).x_min for t in ("Apple", "Pear", "Leek", "Kale")]
    assert max(outer) - min(outer) < 0.5
    assert max(inner) - min(inner) < 0.5
    assert min(inner) > max(outer) + 10  # 1.6em of list padding at 12pt: about 19pt deeper


def test_gfm_tables_and_strikethrough() -> None:
    out = markdown_to_html("| Name | Score |\n|:-----|------:|\n| Ada | ~~9~~ 10 |\n")

    assert out == (
        "<table>\n<thead>\n<tr>\n"
        '<th style="text-align:left">Name</th>\n<th style="text-align:right">Score</th>\n'
        "</tr>\n</thead>\n<tbody>\n<tr>\n"
        '<td style="text-align:left">Ada</td>\n<td style="text-align:right"><s>9</s> 10</td>\n'
        "</tr>\n</tbody>\n</table>\n"
    )


def test_only_safe_link_and_image_targets_survive() -> None:
    svg = "data:image/svg+xml;base64,PHN2Zz4="
    out = markdown_to_html(
        "[web](https://example.com/a) [mail](mailto:a@example.com) [here](#part) "
        "[js](javascript:alert(1)) [JS](JaVaScRiPt:alert(1)) [entity](jav&#x61;script:x) "
        "[file](file:///etc/passwd) [relative](other.html) <javascript:alert(1)>\n\n"
        f"![svg]({svg}) ![**local** file](file:///etc/passwd) ![rel](images/x.png)\n"
    )

    assert out == (
        '<p><a href="https://example.com/a">web</a> <a href="mailto:a@example.com">mail</a>'
        ' <a href="#part">here</a> <a>js</a> <a>JS</a> <a>entity</a> <a>file</a>'
        " <a>relative</a> <a>javascript:alert(1)</a></p>\n"
        f'<p><img src="{svg}" alt="svg"> local file rel</p>\n'
    )


def test_markdown_cannot_inject_markup_scripts_or_local_files(production_client) -> None:
    content = (
        "Before <script>alert(1)</script> after\n\n"
        '<img src="file:///etc/passwd">\n\n'
        '<div style="color: red">html block</div>\n\n'
        "![local](file:///etc/passwd) [js](javascript:alert(1)) ![rel](images/x.png)"
    )
    pdf = generate_pdf(
        production_client,
        {
            "data": [{"label": "<b>not bold</b>", "heading": "<i>x</i>", "content": content}],
            "logo": False,
        },
    )

    text = page_texts(pdf)[0]
    assert "<b>not bold</b>" in text
    assert "<i>x</i>" in text
    assert "<script>alert(1)</script>" in text
    assert '<img src="file:///etc/passwd">' in text
    assert '<div style="color: red">html block</div>' in text
    assert "root:" not in text
    page = reader(pdf).pages[0]
    assert len(page.images) == 0
    assert "/Annots" not in page  # the javascript: link lost its target


def test_element_font_size_colour_and_family(production_client) -> None:
    pdf = generate_pdf(
        production_client,
        {
            "data": [
                {"content": "Normal words"},
                {"content": "Large words", "fontSize": 24},
                {"content": "Red words", "textColor": "#FF0000"},
                {"content": "Courier words", "fontFamily": "Courier"},
            ],
            "fontSize": 10,
            "logo": False,
            "includeTimestamp": False,
        },
    )

    normal, large = word(pdf, "Normal"), word(pdf, "Large")
    assert (large.y_max - large.y_min) / (normal.y_max - normal.y_min) == pytest.approx(
        2.4, abs=0.1
    )
    assert "Liberation-Mono" in fonts(pdf)
    image = page_image(pdf, dpi=72)
    red = word(pdf, "Red")
    crop = image.crop((int(red.x_min), int(red.y_min), int(red.x_max) + 1, int(red.y_max) + 1))
    assert any(r > 200 and g < 80 and b < 80 for r, g, b in crop.get_flattened_data())
    normal_crop = image.crop(
        (int(normal.x_min), int(normal.y_min), int(normal.x_max) + 1, int(normal.y_max) + 1)
    )
    assert not any(r > 150 and g < 80 for r, g, b in normal_crop.get_flattened_data())


def test_document_text_colour_and_size(production_client) -> None:
    small = generate_pdf(production_client, {"data": [{"content": "Sized"}], "fontSize": 8})
    big = generate_pdf(
        production_client, {"data": [{"content": "Sized"}], "fontSize": 16, "textColor": "0000FF"}
    )

    ratio = (word(big, "Sized").y_max - word(big, "Sized").y_min) / (
        word(small, "Sized").y_max - word(small, "Sized").y_min
    )
    assert ratio == pytest.approx(2, abs=0.1)
    image = page_image(big, dpi=72)
    box = word(big, "Sized")
    crop = image.crop((int(box.x_min), int(box.y_min), int(box.x_max) + 1, int(box.y_max) + 1))
    assert any(b > 200 and r < 80 and g < 80 for r, g, b in crop.get_flattened_data())


def test_cjk_text_is_drawn_with_noto_cjk(production_client) -> None:
    content = "日本語のテキスト。中文文本。한국어 텍스트."
    pdf = generate_pdf(production_client, {"data": [{"heading": "多言語", "content": content}]})

    assert content in page_texts(pdf)[0]
    assert "多言語" in page_texts(pdf)[0]
    assert any(name.startswith("Noto-Sans-CJK") for name in fonts(pdf))


def test_catalog_font_family_is_downloaded_and_used(
    production_client, settings, tmp_path, asset_server
) -> None:
    settings.FONT_CACHE_DIR = tmp_path / "fonts"
    settings.FONT_CATALOG_BASE_URL = asset_server.url("/")
    family = load_catalog().family("Fira Sans")
    assert family is not None
    for slot, source in FIRA.items():
        for path in family.slots[slot]:
            asset_server.serve("/" + path, source.read_bytes(), "font/ttf")

    pdf = generate_pdf(
        production_client,
        {"data": [{"label": "Fira label", "content": "Fira body"}], "fontFamily": "Fira Sans"},
    )

    assert {"Fira-Sans", "Fira-Sans-Bold"} <= fonts(pdf)
    assert "Fira body" in page_texts(pdf)[0]
