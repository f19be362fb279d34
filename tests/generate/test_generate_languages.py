"""Generated PDFs in Arabic, Hebrew, Chinese, Japanese and Korean (issue 35, items 3 and 4):
WeasyPrint shapes and orders text through Pango and HarfBuzz itself; this checks it, read back in
reading order with poppler."""

from __future__ import annotations

import pytest

from tests.esign.test_pdf_languages import read_back
from tests.generate.conftest import generate_pdf
from tests.generate.test_html import html


@pytest.mark.parametrize(
    ("language", "direction", "text"),
    [
        ("ar", "rtl", "شهادة إتمام العقد"),  # no lam-alef: its ligature reads back reversed
        ("he", "rtl", "תעודת השלמה של החוזה"),
        ("ja", "ltr", "業務委託契約書の完了証明書"),
        ("zh-Hans", "ltr", "服务协议完成证书"),
        ("ko", "ltr", "서비스 계약서 완료 인증서"),
    ],
)
def test_a_generated_pdf_reads_back_in_the_language(
    production_client, language, direction, text
) -> None:
    body = f'<p lang="{language}" dir="{direction}">{text}</p>'

    pdf = generate_pdf(production_client, html(body))

    assert text in read_back(pdf)
