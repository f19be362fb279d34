"""A PDF chosen in the admin's upload form, kept while the person corrects another field.

A browser never sends a file input's choice twice: after a validation error (no organization,
a title too long) the form would come back empty and the PDF would have to be chosen again.
A PDF that passed its own checks is therefore stored here and named by a signed token in a
hidden field; the next submission without a new file uses it. The token is signed and bound to
the user, so it can name only a file that this user uploaded, and it expires.
"""

from __future__ import annotations

import datetime
import hashlib
import secrets
from dataclasses import dataclass

from django.core import signing
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

PREFIX = "admin-uploads"
MAX_AGE = datetime.timedelta(hours=6)
_SALT = "templates_app.upload_stash"


@dataclass(frozen=True)
class StashedPdf:
    data: bytes
    name: str  # the file name the person chose
    token: str


def stash_pdf(*, data: bytes, name: str, user_id: int) -> StashedPdf:
    _forget_expired()
    sha = hashlib.sha256(data).hexdigest()
    # A file of its own per stash: discarding one (or its expiry) never removes another's.
    path = default_storage.save(f"{PREFIX}/{user_id}-{secrets.token_hex(8)}.pdf", ContentFile(data))
    token = signing.dumps({"path": path, "sha": sha, "name": name, "user": user_id}, salt=_SALT)
    return StashedPdf(data=data, name=name, token=token)


def stashed_pdf(token: str, *, user_id: int) -> StashedPdf | None:
    """The PDF ``token`` names for this user; None if the token is bad, expired or not theirs,
    or the file is gone."""
    try:
        value = signing.loads(token, salt=_SALT, max_age=MAX_AGE)
    except signing.BadSignature:
        return None
    if value.get("user") != user_id:
        return None
    try:
        with default_storage.open(value["path"], "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != value["sha"]:
        return None
    return StashedPdf(data=data, name=value["name"], token=token)


def discard(stashed: StashedPdf) -> None:
    """Delete the kept file once the template it became is saved."""
    value = signing.loads(stashed.token, salt=_SALT)
    default_storage.delete(value["path"])


def _forget_expired() -> None:
    """Delete kept files nobody came back for; run on each new stash, so they cannot pile up."""
    try:
        _, names = default_storage.listdir(PREFIX)
    except (FileNotFoundError, NotImplementedError):
        return
    oldest_kept = timezone.now() - MAX_AGE
    for name in names:
        path = f"{PREFIX}/{name}"
        try:
            if default_storage.get_modified_time(path) < oldest_kept:
                default_storage.delete(path)
        except (FileNotFoundError, NotImplementedError):
            continue
