"""python-anvil's generate_pdf against our service, unchanged but its base URL."""

from pathlib import Path

import pypdf
import pytest


def _texts(path: Path) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(path).pages]


@pytest.mark.django_db(transaction=True)
def test_generate_markdown_as_the_wire_capture(python_anvil, tmp_path) -> None:
    out = tmp_path / "markdown.pdf"
    report = python_anvil(
        "generate_pdf",
        payload={"data": [{"label": "x", "content": "y"}], "title": "t", "type": "markdown"},
        out=str(out),
    )

    assert "error" not in report, report
    assert report["result"]["bytes"] == out.stat().st_size
    texts = _texts(out)
    assert texts[0].splitlines()[:2] == ["x", "y"]
    assert "DEVELOPMENT" in texts[0]  # the fixture's key is a development key
    assert pypdf.PdfReader(out).metadata.title == "t"


@pytest.mark.django_db(transaction=True)
def test_generate_html_with_snake_case_options(python_anvil, tmp_path) -> None:
    out = tmp_path / "html.pdf"
    report = python_anvil(
        "generate_pdf",
        payload={
            "type": "html",
            "title": "Invoice",
            "data": {"html": "<h1>Invoice 42</h1><p>Total: $10</p>", "css": "h1 { color: navy }"},
            "page": {
                "width": "210mm",
                "height": "297mm",
                "margin": "20mm",
                "pageCount": "bottomCenter",
            },
        },
        out=str(out),
    )

    assert "error" not in report, report
    reader = pypdf.PdfReader(out)
    assert (float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)) == (
        pytest.approx(595.28, abs=0.05),
        pytest.approx(841.89, abs=0.05),
    )
    assert "Invoice 42" in _texts(out)[0]
    assert "Page 1 of 1" in _texts(out)[0]


@pytest.mark.django_db(transaction=True)
def test_generate_markdown_with_client_model_fields(python_anvil, tmp_path) -> None:
    out = tmp_path / "styled.pdf"
    report = python_anvil(
        "generate_pdf",
        payload={
            "data": [{"heading": "Styled", "table": {"rows": [["a", "b"], ["1", "2"]]}}],
            "font_size": 14,
            "text_color": "#3E3E57",
            "font_family": "Times New Roman",
            "logo": {
                "src": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
                "max_width": 100,
                "max_height": 100,
            },
        },
        out=str(out),
    )

    assert "error" not in report, report
    assert "Styled" in _texts(out)[0]


@pytest.mark.django_db(transaction=True)
def test_validation_errors_reach_the_python_client(python_anvil, tmp_path) -> None:
    report = python_anvil(
        "generate_pdf",
        payload={"data": [{"content": "x"}], "font_family": "Nonexistent Font"},
        out=str(tmp_path / "never.pdf"),
    )

    assert report["type"] == "Exception"
    assert report["error"].startswith("Error: 400: ")
    assert '"property":"fontFamily"' in report["error"]
    assert 'Unknown font family \\"Nonexistent Font\\"' in report["error"]
