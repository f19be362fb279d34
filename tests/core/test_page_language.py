"""Pages follow the reader's Accept-Language; the API's messages stay in one language."""

import pytest


@pytest.mark.django_db
def test_a_page_is_in_the_browsers_language(client):
    page = client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE="es-MX,es;q=0.9,en;q=0.5")
    assert page.status_code == 200
    assert page["Content-Language"] == "es"
    assert "Nombre de usuario" in page.content.decode()


@pytest.mark.django_db
def test_an_unoffered_language_falls_back_to_english(client):
    page = client.get(
        "/admin/login/", HTTP_ACCEPT_LANGUAGE="fi-FI,fi;q=0.9"
    )  # Finnish: not shipped
    assert page["Content-Language"] == "en"
    assert "Username" in page.content.decode()


@pytest.mark.django_db
def test_the_api_answers_in_english_whatever_the_caller_accepts(api_client):
    # DRF's own messages have a Spanish catalogue: a page-wide LocaleMiddleware would use it.
    plain = api_client.get("/api/v1/fill/" + "a" * 20 + ".pdf")
    spanish = api_client.get("/api/v1/fill/" + "a" * 20 + ".pdf", HTTP_ACCEPT_LANGUAGE="es")
    assert plain.status_code == spanish.status_code == 405
    assert spanish.content == plain.content
    assert "not allowed" in spanish.content.decode()
    assert "Content-Language" not in spanish
