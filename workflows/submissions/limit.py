"""How many submissions one client address may start on a public webform.

A webform's first page is public: each post that passes its checks starts a submission, which
is stored and emits ``weldCreate`` to the organization's webhook. One address may start
WEBFORM_NEW_SUBMISSIONS_PER_ADDRESS of them on a webform per
WEBFORM_NEW_SUBMISSIONS_WINDOW_SECONDS, counted in the shared rate-limit counters
(``accounts.ratelimit``, which hold across server processes); one more is refused before
anything is stored. Continuing a submission (its link's token) is not counted, nor is
forgeSubmit (an API key's calls have the key's own limit). Off, like every rate limit, with
``RATE_LIMIT_ENABLED=false``.
"""

from __future__ import annotations

import math

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext

from accounts.login_guard import client_address
from accounts.ratelimit import rate_limit_hit
from workflows.engine.definition import WebformDef
from workflows.models import Workflow


def new_submission_wait(
    request: HttpRequest, workflow: Workflow, webform: WebformDef
) -> int | None:
    """Count one submission started from the request's address on ``webform``: None if it
    may be, else how many seconds until it may (the response's Retry-After)."""
    if not settings.RATE_LIMIT_ENABLED:
        return None
    decision = rate_limit_hit(
        bucket=f"webform-new:{workflow.pk}:{webform.slug}:{client_address(request)}",
        limit=settings.WEBFORM_NEW_SUBMISSIONS_PER_ADDRESS,
        interval_ms=settings.WEBFORM_NEW_SUBMISSIONS_WINDOW_SECONDS * 1000,
    )
    return None if decision.allowed else decision.retry_after_seconds


def too_many_message(wait_seconds: int) -> str:
    """What the person reads, in their language, above the form that keeps their answers."""
    minutes = max(1, math.ceil(wait_seconds / 60))
    # "min" is the same for one and many in both languages: no plural forms to keep.
    return gettext(
        "Too many forms were started from your address in a short time, so this one was not "
        "saved. Your answers are still here: try again in %(minutes)d min."
    ) % {"minutes": minutes}
