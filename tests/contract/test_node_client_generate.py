"""@anvilco/anvil's generatePDF against our service, unchanged but its base URL."""

from pathlib import Path

import pypdf
import pytest


def _text(path: Path) -> str:
    return "\n".join(page.extract_text() for page in pypdf.PdfReader(path).pages)


@pytest.mark.django_db(transaction=True)
def test_generate_html_as_the_wire_capture(node_anvil, tmp_path) -> None:
    out = tmp_path / "html.pdf"
    report = node_anvil(
        "generatePDF",
        payload={"title": "t", "type": "html", "data": {"html": "<p>x</p>", "css": ""}},
        out=str(out),
    )

    assert report["statusCode"] == 200
    assert report["errors"] is None
    assert report["bytes"] == out.stat().st_size
    assert _text(out).splitlines()[0] == "x"
    assert pypdf.PdfReader(out).metadata.title == "t"


@pytest.mark.django_db(transaction=True)
def test_generate_markdown_with_a_table(node_anvil, tmp_path) -> None:
    out = tmp_path / "markdown.pdf"
    report = node_anvil(
        "generatePDF",
        payload={
            "title": "Report",
            "data": [
                {"heading": "Quarterly report"},
                {
                    "table": {
                        "rows": [["Region", "Revenue"], ["Europe", "$1.2M"]],
                        "rowGridlines": True,
                    }
                },
            ],
            "includeTimestamp": False,
            "logo": False,
        },
        out=str(out),
    )

    assert report["statusCode"] == 200, report
    text = _text(out)
    assert "Quarterly report" in text
    assert "Europe $1.2M" in text


@pytest.mark.django_db(transaction=True)
def test_errors_reach_the_node_client_in_its_shape(node_anvil, tmp_path) -> None:
    empty = node_anvil("generatePDF", payload={}, out=str(tmp_path / "never.pdf"))
    bad_page = node_anvil(
        "generatePDF",
        payload={"type": "html", "data": {"html": "<p>x</p>"}, "page": {"marginTop": "2furlongs"}},
        out=str(tmp_path / "never.pdf"),
    )

    assert empty["statusCode"] == 400
    assert empty["errors"] == [
        {"name": "ValidationError", "fields": [{"message": "Required", "property": "data"}]}
    ]
    assert bad_page["statusCode"] == 400
    assert bad_page["errors"][0]["fields"][0]["property"] == "page.marginTop"
