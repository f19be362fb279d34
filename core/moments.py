"""A date and time a request brings (``expiresAt``, a replay's ``since``): one parser for every
place that takes ISO 8601, so each refuses the same way.

Django's ``parse_datetime`` answers None for text that is not shaped like a date, but *raises*
for text that is shaped like one and names no real moment: February 30th, month 13, hour 25,
an offset of ``+99:00`` (Python's timezones stop short of a day), a year past 9999. Each of those
was a 500 where it was called unguarded; here every one is "not a date and time".
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils.dateparse import parse_datetime

ISO_MESSAGE = "Must be an ISO 8601 date and time (like 2030-01-31T17:00:00Z)."


def parse_moment(value: object) -> datetime | None:
    """``value`` as an aware date and time (UTC when it names no offset), or None when it is
    not text naming a real moment."""
    if not isinstance(value, str):
        return None
    try:
        moment = parse_datetime(value)
    except (ValueError, OverflowError):
        return None
    if moment is None:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
