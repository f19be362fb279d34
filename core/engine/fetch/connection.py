"""The connection layer: one request over a connection pinned to addresses the guard checked.

`exchange()` is the only way the fetcher opens a connection. It runs the guard on the URL, connects
to a checked address (TLS with the URL's host name for SNI and verification), sends one request
and hands the response to the caller's reader, all under one deadline. It never follows a
redirect itself: a 3xx is a response like any other, and whoever wants to follow it calls
`exchange()` again for the next hop, which is checked from scratch. `read_capped()` streams a body
without ever holding more than a cap. Proxy environment variables are deliberately ignored: a
proxy would do its own resolution and defeat the address check.
"""

from __future__ import annotations

import functools
import http.client
import io
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

from core.engine.fetch.errors import FetchError, refuse, remaining
from core.engine.fetch.guard import (
    DEFAULT_PORTS,
    Resolver,
    Target,
    checked_addresses,
    parse_http_url,
)
from core.engine.fetch.policy import FetchPolicy

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

T = TypeVar("T")

_READ_CHUNK = 64 * 1024


def exchange(
    url: str,
    policy: FetchPolicy,
    resolve: Resolver,
    deadline: float,
    *,
    method: str,
    headers: Mapping[str, str],
    body: bytes | None,
    read: Callable[[Target, http.client.HTTPResponse], T],
) -> T:
    """Send one request to `url` through the guard and return what `read` makes of the response.

    Everything that can go wrong on the way (guard, DNS, connect, TLS, sending, a malformed or
    slow response, and whatever `read` raises while reading) ends as a `FetchError`. The request
    body and headers are never logged, nor is the URL's query.
    """
    target = parse_http_url(url)
    addresses = checked_addresses(target, policy, resolve, deadline)
    tls_context = None
    if target.scheme == "https":
        tls_context = policy.ssl_context or _default_tls_context()
    connection = _PinnedConnection(target, addresses, deadline, tls_context)
    response: http.client.HTTPResponse | None = None
    try:
        connection.connect()
        # Since Python 3.5 the timeout bounds a whole sendall(), and http.client sends the headers
        # and a bytes body in one: the deadline covers sending however slowly the server reads.
        connection.sock.settimeout(remaining(deadline, "sending the request"))
        connection.request(method, target.request_target, body=body, headers=dict(headers))
        response = connection.getresponse()
        return read(target, response)
    except FetchError:
        raise
    except TimeoutError as exc:
        raise refuse("timeout", "%s: deadline reached (%s)", target.description, exc) from exc
    except ssl.SSLError as exc:  # includes certificate and host name verification failures
        raise refuse("connection_failed", "%s: TLS failed: %s", target.description, exc) from exc
    except http.client.HTTPException as exc:
        raise refuse("bad_response", "%s: malformed response: %r", target.description, exc) from exc
    except OSError as exc:
        raise refuse("connection_failed", "%s: %s", target.description, exc) from exc
    finally:
        if response is not None:
            response.close()
        connection.close()


def read_capped(
    target: Target, response: http.client.HTTPResponse, deadline: float, limit: int
) -> tuple[bytes, bool]:
    """Stream the body until it ends or more than `limit` bytes have arrived.

    Returns at most `limit` bytes and whether the body went on beyond them; the rest is never
    read (closing the connection discards it). A body that ends before its Content-Length is
    "bad_response".
    """
    chunks: list[bytes] = []
    received = 0
    while received <= limit:
        remaining(deadline, "reading the body")
        chunk = response.read1(min(_READ_CHUNK, limit + 1 - received))
        if not chunk:
            if response.length:  # the server closed before sending what Content-Length promised
                raise refuse("bad_response", "%s: body cut short", target.description)
            return b"".join(chunks), False
        received += len(chunk)
        chunks.append(chunk)
    return b"".join(chunks)[:limit], True


class _DeadlineReader(io.RawIOBase):
    """Socket reads that each get only the time left before the deadline.

    A socket timeout alone bounds each read, not the sum of them: a server sending a byte every
    half second would never trip it. Setting the timeout to what remains before every read, and
    refusing to read once nothing remains, bounds the whole response (status line, headers and
    body) by the one deadline.
    """

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self._sock = sock
        # An unbuffered makefile() keeps the socket open while the response still needs it, even
        # after http.client "closes" the connection (it does for Connection: close responses).
        self._raw = sock.makefile("rb", buffering=0)
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("deadline reached while reading")
        self._sock.settimeout(left)
        return self._raw.readinto(buffer) or 0

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()


class _DeadlineResponse(http.client.HTTPResponse):
    def __init__(
        self,
        sock: socket.socket,
        debuglevel: int = 0,
        method: str | None = None,
        url: str | None = None,
        *,
        deadline: float,
    ) -> None:
        super().__init__(sock, debuglevel=debuglevel, method=method, url=url)
        self.fp.close()  # the plain makefile() from the base class; ours replaces it
        self.fp = io.BufferedReader(_DeadlineReader(sock, deadline))


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to addresses that were already checked, never to a fresh lookup.

    `self.host` stays the name from the URL, so http.client sends the right Host header; TLS gets
    the same name for SNI and certificate verification.
    """

    def __init__(
        self,
        target: Target,
        addresses: list[str],
        deadline: float,
        tls_context: ssl.SSLContext | None,
    ) -> None:
        super().__init__(target.host, target.port)
        self.default_port = DEFAULT_PORTS[target.scheme]  # no ":443" in the Host header
        self.response_class = functools.partial(_DeadlineResponse, deadline=deadline)  # type: ignore[assignment]
        self._addresses = addresses
        self._deadline = deadline
        self._tls_context = tls_context

    def connect(self) -> None:
        last_error: OSError = OSError("no address to connect to")
        for address in self._addresses:
            try:
                self.sock = self._connect_to(address)
            except TimeoutError:
                raise  # the deadline is spent: no time left for another address
            except OSError as exc:  # refused or unreachable: try the next checked address
                last_error = exc
            else:
                return
        raise last_error

    def _connect_to(self, address: str) -> socket.socket:
        # AI_NUMERICHOST: turn the checked literal into a sockaddr (IPv6 scope included) without
        # any chance of a DNS query.
        family, kind, proto, _, sockaddr = socket.getaddrinfo(
            address, self.port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
        )[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(remaining(self._deadline, f"connecting to {address}"))
            sock.connect(sockaddr)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._tls_context is not None:
                sock.settimeout(remaining(self._deadline, f"TLS with {address}"))
                sock = self._tls_context.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise
        return sock


@functools.cache
def _default_tls_context() -> ssl.SSLContext:
    # Built once: loading the system CA store is not free, and a context is safe to share.
    context = ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols(["http/1.1"])
    return context
