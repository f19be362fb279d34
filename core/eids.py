"""Public ids: 20-character random base62 strings, the shape the compatible API uses."""

import secrets
import string

BASE62 = string.digits + string.ascii_letters
EID_LENGTH = 20


def new_eid() -> str:
    return "".join(secrets.choice(BASE62) for _ in range(EID_LENGTH))


def random_base62(length: int) -> str:
    return "".join(secrets.choice(BASE62) for _ in range(length))
