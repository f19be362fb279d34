"""Public ids: 20-character random base62 strings, the shape the compatible API uses."""

import secrets
import string

BASE62 = string.digits + string.ascii_letters
EID_LENGTH = 20


def new_eid() -> str:
    return "".join(secrets.choice(BASE62) for _ in range(EID_LENGTH))


def random_base62(length: int) -> str:
    return "".join(secrets.choice(BASE62) for _ in range(length))


EID_PATTERN = f"[0-9A-Za-z]{{{EID_LENGTH}}}"


class EidConverter:
    """``<eid:name>`` in a URL: only an eid's shape matches, so anything else (``%00``, a name,
    a number too large for a column) is the 404 of a path that names nothing, before any view
    or lookup sees it."""

    regex = EID_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class NameConverter:
    """``<name:alias>``: a client's own id in a URL (a document's alias), or an eid where a
    person follows the link and a wrong one deserves the page that says so (the signer's
    pages): as ``str`` matches it, but without control characters (``%00`` names nothing, and
    PostgreSQL compares no NUL)."""

    regex = r"[^/\x00-\x1f\x7f]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
