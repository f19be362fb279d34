"""The language of what a signer reads: their pages, their emails, the audit trail.

A packet or a signer may be given one (createEtchPacket's ``language``, an extension; the
signer's wins), and the signer may pick one in the signing page's language menu (kept as
theirs). Without one a page follows the browser's Accept-Language, and an email or the audit
trail, which no browser asks for, is in English. The signing pages live under /api/,
which core.middleware.PageLanguageMiddleware keeps in English for the API's sake: their views
choose the language here.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers

from esign.models import Packet, Signer


def signer_language(signer: Signer) -> str:
    """The language given for ``signer`` (their own, else the packet's), or ""."""
    return signer.language or signer.packet.language


def written_language(*, signer: Signer | None = None, packet: Packet | None = None) -> str:
    """The language of an email to ``signer`` or of ``packet``'s audit trail."""
    chosen = signer_language(signer) if signer is not None else packet.language if packet else ""
    return chosen or settings.LANGUAGE_CODE


def chosen_language(request: HttpRequest) -> str:
    """The language the reader picked in the page's language menu (``?lang=``), if shipped."""
    code = request.GET.get("lang", "").strip().lower()
    return code if code in {code for code, _name in settings.LANGUAGES} else ""


def page_language_activate(
    request: HttpRequest, signer: Signer | None, *, remember: bool = False
) -> str:
    """Activate the language of a signer's page for the rest of the request; returns it.

    The language menu's choice wins over everything; with ``remember`` (the signing page, whose
    token proved the signer) it becomes the signer's ``language``, so their later pages, the
    answers to their finish and their emails follow it."""
    chosen = chosen_language(request)
    if chosen and remember and signer is not None and signer.language != chosen:
        Signer.objects.filter(pk=signer.pk).update(language=chosen)
        signer.language = chosen
    language = (
        chosen
        or (signer_language(signer) if signer is not None else "")
        or translation.get_language_from_request(request)
    )
    translation.activate(language)
    request.LANGUAGE_CODE = language
    return language


def in_language(response: HttpResponse, language: str) -> HttpResponse:
    """Say which language ``response`` is in, and that it depends on Accept-Language."""
    response["Content-Language"] = language
    patch_vary_headers(response, ("Accept-Language",))
    return response
