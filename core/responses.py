"""A file as an HTTP response: its bytes, its type and the name a browser saves it under."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.http import content_disposition_header


def file_response(
    data: bytes | str, *, filename: str, content_type: str, attachment: bool = True
) -> HttpResponse:
    """``attachment`` saves it; otherwise the browser shows it (``inline``).

    Django writes the Content-Disposition: a plain ASCII name as ``filename="..."`` (quotes and
    backslashes escaped), any other as RFC 6266's ``filename*=utf-8''...``, so a Spanish
    packet's "Contrato de arrendamiento – García.zip" keeps its accents in the browser.
    """
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(attachment, filename)
    return response
