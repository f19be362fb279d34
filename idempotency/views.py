"""The ``Idempotency-Key`` header on the API's POSTs that create something: a view-level wrapper.

``@idempotent()`` wraps a DRF view's ``post``: it runs after authentication and the rate limit
(an unauthenticated or throttled request claims nothing) and before the service. Without the
header the view runs as it always did. With it, the same request (method, path, query and parsed
body, files by their SHA-256) within IDEMPOTENCY_KEY_HOURS gets the first answer again (status,
body, content type, and ``Idempotent-Replayed: true``) without running again; another request
with the key gets a 409. A refusal or failure (an error raised by the view, a 4xx or 5xx, a
GraphQL answer with errors and no root field answered) keeps nothing: the retry runs again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from django.http import HttpResponse, HttpResponseBase
from django.utils import timezone
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from core.errors import ValidationFailed
from core.graphql.views import GraphQLApi
from idempotency.services import (
    Claimed,
    Replay,
    idempotency_claim,
    idempotency_complete,
    idempotency_release,
)

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
# Visible ASCII, as Stripe and the IETF draft's examples (UUIDs, random strings) are.
_VALID_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")

Handler = Callable[..., HttpResponseBase]


def _canonical(value: Any) -> Any:
    """A JSON-able stand-in for a parsed body value: an uploaded file by its name, type and
    SHA-256 (a multipart body's boundary changes on every retry; its content does not)."""
    if hasattr(value, "chunks") and hasattr(value, "name"):
        digest = hashlib.sha256()
        for chunk in value.chunks():
            digest.update(chunk)
        value.seek(0)
        return {"file": digest.hexdigest(), "name": value.name, "type": value.content_type}
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    return value


def request_hash(request: Request) -> str:
    """The SHA-256 of what makes a request this request; the request itself is never kept."""
    data = request.data
    if hasattr(data, "lists"):  # a QueryDict (multipart): every value of every part
        parsed: Any = {key: [_canonical(v) for v in values] for key, values in data.lists()}
    else:
        parsed = _canonical(data)
    text = json.dumps(
        [request.method, request.path, request.META.get("QUERY_STRING", ""), parsed],
        sort_keys=True,
        default=str,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _key_of(request: Request) -> str | None:
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not _VALID_KEY.match(key):
        raise ValidationFailed.single(
            HEADER, "Must be 1 to 255 visible ASCII characters (a UUID, for example)."
        )
    return key


def _body_of(response: HttpResponseBase) -> tuple[str, bytes | None]:
    """The content type and bytes of an answer as the client will get them (None: streamed)."""
    if isinstance(response, Response):
        return "application/json", JSONRenderer().render(response.data)
    if isinstance(response, HttpResponse):
        return response.get("Content-Type", ""), response.content
    return response.get("Content-Type", ""), None


def _replayed(replay: Replay) -> HttpResponse:
    response = HttpResponse(
        replay.body, status=replay.status_code, content_type=replay.content_type
    )
    response[REPLAYED_HEADER] = "true"
    return response


def _graphql_did_nothing(response: HttpResponseBase) -> bool:
    """A GraphQL answer (200 by the transport's rule) that is a refusal: errors, and no root
    field answered (a validation error, an unknown eid...). Like a REST 4xx, it is not kept."""
    if isinstance(response, Response):
        body = response.data
    elif isinstance(response, HttpResponse):
        try:
            body = json.loads(response.content)
        except ValueError:
            return False
    else:
        return False
    if not isinstance(body, dict) or not body.get("errors"):
        return False
    data = body.get("data")
    return not isinstance(data, dict) or all(value is None for value in data.values())


def _refusal(response: HttpResponseBase) -> bool:
    return response.status_code >= 400


def idempotent(
    *, keep_answer: bool = True, refused: Callable[[HttpResponseBase], bool] = _refusal
) -> Callable[[Handler], Handler]:
    """Honour ``Idempotency-Key`` on a DRF view method. ``keep_answer=False`` (fill: the service
    stores nothing of the data it is sent, and its answer is that data in a PDF) keeps only the
    request's hash: a retry runs again, and a different request with the key is still a 409.
    An answer that ``refused`` (an error status; for GraphQL, errors and nothing done) or a
    failure keeps nothing: the corrected request may come with the same key."""

    def wrap(handler: Handler) -> Handler:
        @functools.wraps(handler)
        def run(view: Any, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
            key = _key_of(request)
            if key is None:
                return handler(view, request, *args, **kwargs)
            outcome = idempotency_claim(
                organization=request.user.organization,
                key=key,
                request_hash=request_hash(request),
                now=timezone.now(),
            )
            if isinstance(outcome, Replay):
                return _replayed(outcome)
            if not isinstance(outcome, Claimed):  # RunAgain: the first answer was not kept
                return handler(view, request, *args, **kwargs)
            try:
                response = handler(view, request, *args, **kwargs)
            except BaseException:
                idempotency_release(key_id=outcome.key_id)
                raise
            if response.status_code >= 500 or refused(response):
                idempotency_release(key_id=outcome.key_id)
                return response
            content_type, body = _body_of(response)
            idempotency_complete(
                key_id=outcome.key_id,
                status_code=response.status_code,
                content_type=content_type,
                body=body if keep_answer else None,
                keep=keep_answer,
            )
            return response

        return run

    return wrap


class IdempotentGraphQLApi(GraphQLApi):
    """The GraphQL endpoint with ``Idempotency-Key`` on its POSTs (createEtchPacket,
    forgeSubmit...): the key stands for the whole request, whatever operations it holds."""

    post = idempotent(refused=lambda r: _refusal(r) or _graphql_did_nothing(r))(GraphQLApi.post)
