"""gunicorn's threaded worker, answering the errors gunicorn meets itself in the API's JSON.

gunicorn refuses some requests before the application sees them (a request line over
``limit_request_line``: 414; headers too large: 431; a malformed request: 400) and writes an
HTML page for them. Clients of the API parse JSON, so in a worker of this class those answers
are in the wire shape too: ``{"name", "message"}``. gunicorn writes them through
``gunicorn.util.write_error`` (status, reason, message), which this module replaces with a JSON
writer when gunicorn loads the class; the message never quotes the request.
"""

from __future__ import annotations

import json
import socket

from gunicorn import util
from gunicorn.workers.gthread import ThreadWorker

_WIRE_ERRORS = {
    400: ("BadRequestError", "The HTTP request is malformed."),
    403: ("ForbiddenError", "The request is forbidden."),
    414: ("RequestTooLarge", "The request line (method, path and query) is too long."),
    417: ("ExpectationFailedError", "The Expect header is not supported."),
    431: ("RequestTooLarge", "The request headers are too large."),
    500: ("InternalServerError", "An unexpected error occurred."),
    501: ("NotImplementedError", "The transfer coding is not supported."),
}


def json_error_response(status: int, reason: str) -> bytes:
    """A whole HTTP response in the wire shape, for ``status``."""
    name, message = _WIRE_ERRORS.get(status, ("HttpError", f"{reason}."))
    body = json.dumps({"name": name, "message": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "\r\n"
    )
    return head.encode("latin-1") + body


def write_json_error(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """``gunicorn.util.write_error``, in JSON; ``mesg`` (which quotes the request) is dropped."""
    util.write_nonblock(sock, json_error_response(int(status_int), reason))


class JsonErrorThreadWorker(ThreadWorker):
    """gunicorn's ``gthread`` worker whose own error answers are JSON."""

    @classmethod
    def setup(cls) -> None:
        # Called by gunicorn when it loads the worker class, in the arbiter before it forks.
        util.write_error = write_json_error
