"""The signing page in Spanish, in Chromium: chosen by the signer's ``language`` (the packet's in
the completion page's test) and by the browser's Accept-Language, at 1366×900 and on a phone (390×844); its dialog, its messages (the
scripts' words come translated from the server), the done state, the error and completion pages.
Screenshots in test-artifacts/esign/; axe finds nothing on any of them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.axe import axe_violations
from tests.browser import DESKTOP, PHONE, PHONE_OPTIONS, Tab
from tests.esign.conftest import two_signer_packet
from tests.esign.test_signing_browser import SHOTS, refused_request, signers_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CREATE = """
mutation Create($name: String, $files: [EtchFile!], $signers: [JSON!], $language: String) {
  createEtchPacket(name: $name, files: $files, signers: $signers, language: $language) {
    eid documentGroup { eid signers { eid aliasId } }
  }
}
"""
EXPIRE = "mutation($s: String!) { expireSignerTokens(signerEid: $s) }"


@pytest.fixture
def spanish_packet(graphql, settings, live_server) -> Any:
    settings.PUBLIC_BASE_URL = live_server.url

    def make(language: str | None, signer_language: str | None = None) -> dict[str, str]:
        variables = two_signer_packet()
        if signer_language:
            variables["signers"][0]["language"] = signer_language
        result = graphql(CREATE, {**variables, "language": language})
        assert "errors" not in result, result
        return signers_of(result["data"]["createEtchPacket"])

    return make


def shoot(tab: Tab, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(SHOTS / f"{name}.png"))


def no_axe_violations(tab: Tab) -> None:
    assert axe_violations(tab.page) == []


def test_the_signing_page_in_spanish_by_the_signers_language(
    browser, spanish_packet, sign_url
) -> None:
    first = spanish_packet(None, signer_language="es")["client"]
    url = sign_url(first)
    # On the phone first: the desktop signs at the end.
    for name, viewport, options in (
        ("phone", PHONE, PHONE_OPTIONS),
        ("desktop", DESKTOP, {}),
    ):
        # The browser asks for English: the signer's language wins.
        tab = Tab(browser, viewport, expected=refused_request, locale="en-US", **options)
        tab.page.goto(url)
        tab.page.wait_for_selector("#signing[data-state=ready]")
        tab.page.wait_for_selector(".sg-page.is-rendered")
        assert tab.page.get_attribute("html", "lang") == "es"
        assert tab.page.inner_text(".sg-subtitle") == "Firmando como Ada Lovelace"
        assert tab.page.inner_text("#sg-finish") == "Terminar"
        assert tab.page.inner_text("#sg-decline-open") == "Rechazar"
        assert tab.page.inner_text("#sg-progress") == "Campo 1 de 2"
        assert tab.page.inner_text("#sg-count") == "0 de 2 completados"
        assert tab.page.locator(".sg-fieldlist-label").all_inner_texts() == ["Texto", "Firma"]
        assert tab.page.locator(".sg-fieldlist-where").all_inner_texts() == [
            "página 1",
            "página 2",
        ]
        assert tab.page.inner_text("label[for=sg-value]") == "Su texto"
        assert "2 páginas" in tab.page.inner_text(".sg-document-title")
        no_axe_violations(tab)
        shoot(tab, f"30-spanish-opens-{name}")

        # Finish too early: the guide says what is missing, in Spanish.
        tab.page.click("#sg-finish")
        assert tab.page.inner_text("#sg-field-error") == (
            "Complete este campo para terminar (faltan 2 campos)."
        )
        tab.page.fill("#sg-value", "Directora")
        tab.page.click("#sg-next")
        tab.page.click("#sg-adopt-open")
        tab.page.wait_for_selector("#sg-adopt[open]")
        assert tab.page.inner_text("#sg-adopt-title") == "Adopte su firma"
        assert tab.page.inner_text("#sg-adopt-ok") == "Adoptar y firmar"
        tab.page.fill("#sg-typed", "")
        tab.page.click("#sg-adopt-ok")
        assert tab.page.inner_text("#sg-adopt-error") == "Escriba su nombre para firmar."
        tab.page.fill("#sg-typed", "Ada Lovelace")
        no_axe_violations(tab)
        shoot(tab, f"31-spanish-adopt-{name}")
        if name == "phone":
            tab.page.click("#sg-adopt-cancel")
            tab.close()
            continue
        tab.page.click("#sg-adopt-ok")
        assert tab.page.inner_text("#sg-count") == (
            "Los 2 campos están completos. Seleccione Terminar para firmar."
        )
        tab.page.click("#sg-finish")
        tab.page.wait_for_selector("#signing[data-state=done]")
        assert tab.page.inner_text("#sg-result-title") == "Listo"
        assert tab.page.inner_text("#sg-copies-title") == "Su copia"
        assert tab.page.inner_text("#sg-copies-list a") == "Descargar «Services agreement» (PDF)"
        no_axe_violations(tab)
        shoot(tab, f"32-spanish-done-{name}")
        tab.close()


def test_the_signing_page_in_spanish_by_accept_language(
    browser, spanish_packet, sign_url, graphql
) -> None:
    signers = spanish_packet(None)
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        tab = Tab(browser, viewport, expected=refused_request, locale="es-MX")
        tab.page.goto(sign_url(signers["provider"]))
        tab.page.wait_for_selector("#signing[data-state=waiting]")
        tab.page.wait_for_selector(".sg-page.is-rendered")
        assert tab.page.get_attribute("html", "lang") == "es"
        assert tab.page.inner_text("#sg-notice") == (
            "Ada Lovelace debe firmar primero. Ya puede leer los documentos; podrá firmar en "
            "cuanto esa persona haya firmado."
        )
        no_axe_violations(tab)
        shoot(tab, f"33-spanish-by-browser-waiting-{name}")
        tab.close()
    # The same link in an English browser is in English.
    tab = Tab(browser, DESKTOP, expected=refused_request, locale="en-US")
    tab.page.goto(sign_url(signers["provider"]))
    tab.page.wait_for_selector("#signing[data-state=waiting]")
    assert "Ada Lovelace must sign first" in tab.page.inner_text("#sg-notice")
    tab.close()

    # An expired link's page, in the browser's language.
    url = sign_url(signers["client"])
    graphql(EXPIRE, {"s": signers["client"]})
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        tab = Tab(browser, viewport, expected=refused_request, locale="es-MX")
        tab.page.goto(url)
        tab.page.wait_for_selector(".sg-error[data-error-type=tokenExpired]")
        assert tab.page.inner_text("h1") == "Este enlace de firma no se puede usar"
        assert tab.page.inner_text(".sg-error-message") == "Este enlace de firma ya venció."
        no_axe_violations(tab)
        shoot(tab, f"34-spanish-expired-link-{name}")
        tab.close()


def complete_by_script(tab: Tab) -> str:
    """Completes the signing open in ``tab`` as the page's script would (typed signature, the
    title filled): the completion page's legacy URL."""
    return tab.page.evaluate(
        """async () => {
          const config = JSON.parse(document.getElementById("signing-config").textContent);
          const token = document.getElementById("signing").dataset.token;
          const response = await fetch(config.completeUrl, {
            method: "POST",
            headers: { "Content-Type": "application/json", "X-Signing-Token": token },
            body: JSON.stringify({ signature: { typed: "Ada Lovelace" },
                                   values: { "agreement/title1": "Directora" } }),
          });
          return (await response.json()).legacyURL;
        }"""
    )


def test_the_completion_page_in_spanish(browser, spanish_packet, sign_url, live_server) -> None:
    signers = spanish_packet("es")
    tab = Tab(browser, DESKTOP, expected=refused_request)
    tab.page.goto(sign_url(signers["client"]))
    tab.page.wait_for_selector("#signing[data-state=ready]")
    tab.page.fill("#sg-value", "Directora")
    tab.page.click("#sg-next")
    tab.page.click("#sg-adopt-open")
    tab.page.click("#sg-adopt-ok")
    legacy = complete_by_script(tab)
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        tab.page.set_viewport_size(viewport)
        response = tab.page.goto(legacy)
        assert response.status == 200
        assert tab.page.inner_text("h1") == "Listo"
        assert "Ya firmó. Descargue su copia aquí abajo." in tab.page.inner_text("main")
        no_axe_violations(tab)
        shoot(tab, f"35-spanish-completion-page-{name}")
    tab.close()
