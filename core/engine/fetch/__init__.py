"""The one safe HTTP client for every outbound URL named by request data or by a customer.

Image URLs in a PDF fill, images and fonts in HTML/Markdown generation, logos: whatever the caller
names is read with `fetch()`; webhook deliveries are sent with `post()`. Both go through the same
guard and connection layer, so the server can never be turned into a proxy for its own network
(SSRF). The rules, in the order they are applied:

- only ``http`` and ``https`` URLs (and ``data:`` for `fetch()`); no credentials in the URL;
- the host name is resolved once, *every* resolved address must be globally routable (unless the
  policy allowlists the host or the network), and the connection is made to an address that was
  checked, so a second DNS answer (rebinding) never gets a say. The Host header, TLS SNI and
  certificate verification still use the host name from the URL;
- `fetch()` refuses redirects, or follows them up to `FetchPolicy.max_redirects` with every hop
  checked again from scratch; `post()` never follows one and returns the 3xx as it is;
- one deadline covers the whole call (DNS, connect, TLS, sending, headers, body, every hop), so a
  server that drips a byte at a time is cut off rather than holding a worker;
- the response size is capped from Content-Length *and* while streaming (`fetch()` refuses, `post()`
  keeps the first bytes); `fetch()` checks the content type before the body is read.

Errors are `FetchError` with a stable `code` and a short generic message; the detail (which
address, which hop) goes to the ``core.engine.fetch`` logger only, and never a URL's query, a
request body or request headers. Proxy environment variables are deliberately ignored: a proxy
would do its own resolution and defeat the address check.

Layout: `policy` (`FetchPolicy`), `guard` (URL parsing, resolution, address checks),
`connection` (pinned connection, TLS, deadline, capped streaming), `client` (`fetch`, `post`),
`data_url`, `errors`. Import from this package, not from the modules.

Pure Python: no Django here (enforced by import-linter); callers turn settings into a
`FetchPolicy`.
"""

from core.engine.fetch.client import (
    Fetched,
    PostResponse,
    check_address,
    decode_data_url,
    fetch,
    post,
)
from core.engine.fetch.data_url import data_url_size
from core.engine.fetch.errors import FetchError, FetchErrorCode
from core.engine.fetch.guard import MAX_URL_LENGTH, Resolver, is_public_address
from core.engine.fetch.policy import FetchPolicy

__all__ = [
    "MAX_URL_LENGTH",
    "FetchError",
    "FetchErrorCode",
    "FetchPolicy",
    "Fetched",
    "PostResponse",
    "Resolver",
    "check_address",
    "data_url_size",
    "decode_data_url",
    "fetch",
    "is_public_address",
    "post",
]
