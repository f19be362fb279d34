"""The published clients fill PDFs unchanged: python-anvil fill_pdf and @anvilco/anvil fillPDF."""

import pytest

from tests.pdfcheck import page_text

PAYLOAD = {
    "title": "Client fill",
    "fontSize": 10,
    "data": {
        "name": {"firstName": "Grace", "lastName": "Hopper"},
        "email": "grace@example.com",
        "items": ["COBOL"],
    },
}


@pytest.mark.django_db(transaction=True)
def test_python_anvil_fill_pdf(python_anvil, demo_template, tmp_path) -> None:
    out = tmp_path / "filled.pdf"
    report = python_anvil(
        "fill_pdf",
        template_id=demo_template.eid,
        payload=PAYLOAD,
        out=str(out),
        kwargs={"version_number": -1},
    )

    assert "error" not in report, report
    pdf = out.read_bytes()
    assert report["result"]["bytes"] == len(pdf)
    assert "Grace Hopper" in page_text(pdf)
    assert "COBOL" in page_text(pdf, 1)


@pytest.mark.django_db(transaction=True)
def test_python_anvil_surfaces_a_validation_error(python_anvil, demo_template, tmp_path) -> None:
    report = python_anvil(
        "fill_pdf",
        template_id=demo_template.eid,
        payload={"data": {"ssn": "1"}},
        out=str(tmp_path / "x.pdf"),
    )

    assert "400" in report["error"]
    assert "data.ssn" in report["error"]


@pytest.mark.django_db(transaction=True)
def test_node_fill_pdf(node_anvil, demo_template, tmp_path) -> None:
    out = tmp_path / "filled.pdf"
    report = node_anvil(
        "fillPDF",
        templateId=demo_template.eid,
        payload=PAYLOAD,
        options={"versionNumber": -1},
        out=str(out),
    )

    assert report["statusCode"] == 200
    assert report["errors"] is None
    assert report["bytes"] == out.stat().st_size
    assert "grace@example.com" in page_text(out.read_bytes())


@pytest.mark.django_db(transaction=True)
def test_node_fill_pdf_errors_come_back_as_errors(node_anvil, demo_template, tmp_path) -> None:
    report = node_anvil(
        "fillPDF", templateId=demo_template.eid, payload={}, out=str(tmp_path / "x.pdf")
    )

    assert report["statusCode"] == 400
    assert report["errors"] == [
        {"name": "ValidationError", "fields": [{"message": "Required", "property": "data"}]}
    ]


@pytest.mark.django_db(transaction=True)
def test_node_client_takes_its_throttle_from_our_headers(
    node_anvil, demo_template, settings, tmp_path
) -> None:
    settings.RATE_LIMIT_DEVELOPMENT = 5
    report = node_anvil("twoFills", templateId=demo_template.eid, payload=PAYLOAD)

    assert report["data"]["statuses"] == [200, 200]
    assert (report["data"]["limitTokens"], report["data"]["limitIntervalMs"]) == (5, 1000)
