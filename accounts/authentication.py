"""HTTP Basic with the API key as user name and an empty password, for REST and GraphQL."""

from __future__ import annotations

import base64
import binascii

from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from accounts.identity import ApiIdentity
from accounts.models import ApiKey
from accounts.services import api_key_authenticate
from accounts.usage import api_key_usage_count
from core.errors import AuthorizationError


def key_from_authorization_header(header: str) -> str | None:
    """The API key in ``Basic base64("<key>:")``; the colon may be missing (one client omits it).

    Returns None when there is no Basic header at all.
    """
    scheme, _, credentials = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(credentials.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise AuthorizationError("Not logged in: malformed Basic credentials.") from None
    key, _, _password = decoded.partition(":")
    return key


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[ApiIdentity, ApiKey] | None:
        raw_key = key_from_authorization_header(request.META.get("HTTP_AUTHORIZATION", ""))
        if raw_key is None:
            return None
        api_key = api_key_authenticate(raw_key=raw_key)
        if api_key is None:
            raise AuthorizationError("Not logged in: the API key is invalid or revoked.")
        api_key_usage_count(api_key=api_key)
        return ApiIdentity(organization=api_key.organization, api_key=api_key), api_key

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) when credentials are missing.
        return 'Basic realm="api"'
