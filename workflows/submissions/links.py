"""Links for people: a submission's continue URL, whose token is an HMAC of the submission's eid,
its link secret and when it expires (nothing secret is stored; removing the submission, or
rotating its secret, ends the links)."""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext

from core.errors import NotFound
from workflows.models import (
    Submission,
    new_link_secret,
)

_CONTINUE_SALT = "workflows.submission.continue"


def continue_token(submission: Submission, *, now: datetime | None = None) -> str:
    """The secret of a continue link: when it expires, and a MAC of the submission, its link
    secret (rotating it ends every link given so far) and that time. Valid for
    WORKFLOW_CONTINUE_LINK_DAYS."""
    now = now or timezone.now()
    expires = int((now + timedelta(days=settings.WORKFLOW_CONTINUE_LINK_DAYS)).timestamp())
    return f"{expires:x}.{_continue_mac(submission, expires)}"


def _continue_mac(submission: Submission, expires: int) -> str:
    value = f"{submission.eid}:{submission.link_secret}:{expires}"
    return salted_hmac(_CONTINUE_SALT, value).hexdigest()[:40]


def _continue_token_valid(submission: Submission, token: str) -> bool:
    expiry, _, mac = (token or "").partition(".")
    try:
        expires = int(expiry, 16)
    except ValueError:
        return False
    if not constant_time_compare(mac, _continue_mac(submission, expires)):
        return False
    return expires > timezone.now().timestamp()


def submission_links_rotate(*, submission: Submission) -> None:
    """End every continue link of ``submission`` handed out so far (new ones work)."""
    submission.link_secret = new_link_secret()
    submission.save(update_fields=["link_secret", "updated_at"])


def continue_path(submission: Submission) -> str:
    workflow = submission.workflow
    return reverse(
        "workflows-continue", args=[workflow.organization.slug, workflow.slug, submission.eid]
    )


def continue_link(submission: Submission, *, embedded: bool = False) -> str:
    """The continue URL's path and query (for a page on this service)."""
    query = {"token": continue_token(submission)}
    if embedded:
        query["embedded"] = "true"
    return f"{continue_path(submission)}?{urlencode(query)}"


def continue_url(submission: Submission, *, embedded: bool = False) -> str:
    """Where the person resumes: the step they are on (the done page when finished)."""
    return settings.PUBLIC_BASE_URL + continue_link(submission, embedded=embedded)


def submission_for_link(
    *, organization_slug: str, workflow_slug: str, eid: str, token: str
) -> Submission:
    """The submission a continue link opens; NotFound unless every part of it matches."""
    submission = (
        Submission.objects.select_related("workflow__organization")
        .filter(
            eid=eid,
            workflow__slug=workflow_slug,
            workflow__organization__slug=organization_slug,
        )
        .first()
    )
    if submission is None or not _continue_token_valid(submission, token):
        raise NotFound(gettext("This link is not valid or has expired. Ask for a new one."))
    return submission
