"""Model fields shared by every app."""

from django.db import models

from core.eids import EID_LENGTH, new_eid


class EidField(models.CharField):
    """The public id of a row: 20 random base62 characters, set once."""

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        kwargs.setdefault("max_length", EID_LENGTH)
        kwargs.setdefault("unique", True)
        kwargs.setdefault("editable", False)
        kwargs.setdefault("default", new_eid)
        super().__init__(*args, **kwargs)
