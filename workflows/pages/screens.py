"""What a webform page shows: the screen the views draw (its fields and groups are in
workflows.pages.fields, where a person is in workflows.pages.steps), the rules and strings for
the page's script, the events for an embedding page and the last page. See workflows/pages/views.py
for the pages."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext

from accounts.embedding import allow_framing_by, embed_origins
from accounts.models import Organization
from esign import packets
from esign.links import signer_link
from esign.models import Signer
from esign.packets import AuditAction
from esign.signing import is_signers_turn
from workflows.engine.conditions import condition_keys
from workflows.engine.definition import WebformDef, WorkflowDef
from workflows.engine.defs import show_when_json
from workflows.engine.resolve import answers, drop_hidden
from workflows.engine.rules import (
    IMAGE_TYPES,
    PHONE_REGION_INFO,
    US_STATES,
    browser_rules,
)
from workflows.models import Submission, Workflow
from workflows.pages.fields import (
    FieldView,
    GroupView,
    field_views,
    group_views,
    isolated,
    rule_gettext,
)
from workflows.pages.numbers import page_number_format
from workflows.pages.steps import shown_steps
from workflows.submissions import links
from workflows.submissions.files import submission_files
from workflows.submissions.reads import SIGNING, definition_for, payloads_of

EMBED_FLAGS = ("embedded", "withinIframe")


def own_origin() -> str:
    parts = urlsplit(settings.PUBLIC_BASE_URL)
    return f"{parts.scheme}://{parts.netloc}"


def framed(response: HttpResponse, organization: Organization | None) -> HttpResponse:
    """Only the organization's embedding origins (and the service itself) may frame the page."""
    allow_framing_by(response, embed_origins(organization) if organization else [])
    # The continue URL's token never leaves in a Referer to another site; same-origin rather
    # than no-referrer, with which Chromium posts "Origin: null" and CSRF checks (the admin's
    # preview) refuse the form.
    response["Referrer-Policy"] = "same-origin"
    return response


def message_page(
    request: HttpRequest,
    title: str,
    text: str,
    *,
    status: int,
    organization: Organization | None = None,
) -> HttpResponse:
    response = render(
        request, "workflows/message.html", {"title": title, "text": text}, status=status
    )
    return framed(response, organization)


def is_embedded(request: HttpRequest) -> bool:
    return is_embedded_by_address(request) or any(
        request.POST.get(flag) == "true" for flag in EMBED_FLAGS
    )


def is_embedded_by_address(request: HttpRequest) -> bool:
    """The flag in the address alone, for an answer given before the body is read."""
    return any(request.GET.get(flag) == "true" for flag in EMBED_FLAGS)


@dataclass
class Screen:
    """Everything form.html needs for one page of one webform."""

    workflow: Workflow
    definition: WorkflowDef
    webform: WebformDef
    page_index: int
    fields: list[FieldView]
    submission: Submission | None = None
    embedded: bool = False
    preview: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    form_error: str = ""
    groups: list[GroupView] = field(default_factory=list)

    @property
    def page(self) -> Any:
        return self.webform.pages[self.page_index]

    @cached_property
    def payloads(self) -> dict[str, dict[str, Any]]:
        return payloads_of(self.submission) if self.submission else {}

    @cached_property
    def steps(self) -> list[tuple[WebformDef, int]]:
        """The pages shown (a conditional page its answers hide is no step; the preview shows
        them all). This page is among them even when the answers hide it now."""
        if self.preview:
            return list(self.definition.steps())
        shown = shown_steps(self.definition, self.payloads)
        if not any(self._is_here(w, i) for w, i in shown):
            shown = [s for s in self.definition.steps() if s in shown or self._is_here(*s)]
        return shown

    def _is_here(self, webform: WebformDef, index: int) -> bool:
        return webform.eid == self.webform.eid and index == self.page_index

    @property
    def step_number(self) -> int:
        for number, (webform, index) in enumerate(self.steps, start=1):
            if self._is_here(webform, index):
                return number
        return 1

    @property
    def is_last_page(self) -> bool:
        return self.page_index == len(self.webform.pages) - 1

    @property
    def is_last_step(self) -> bool:
        return self.step_number == len(self.steps)

    @property
    def has_back(self) -> bool:
        return self.step_number > 1

    @property
    def multipart(self) -> bool:
        return any(f.type == "imageFile" for f in self.fields)

    @property
    def errors(self) -> list[Any]:
        """The field views and group views with a message, in the page's order."""
        out: list[Any] = [f for f in self.fields if f.error]
        for group in self.groups:
            out.extend([group] if group.message else [])
            out.extend(group.summary)
        return out

    @property
    def preview_links(self) -> list[tuple[str, str, bool]]:
        """Every page of the preview: its label, address and whether it is this one."""
        return [
            (
                f"{number}. {isolated(webform.name)}: {isolated(webform.pages[index].title)}",
                "?" + urlencode({"forge": webform.slug, "page": index}),
                self._is_here(webform, index),
            )
            for number, (webform, index) in enumerate(self.steps, start=1)
        ]


def page_rules(screen: Screen) -> dict[str, Any]:
    rules = browser_rules(rule_gettext, page_number_format())
    rules["limits"]["imageUploadBytes"] = settings.WEBFORM_IMAGE_UPLOAD_MAX_BYTES
    on_page = {f.definition.key for f in screen.fields}
    later = [
        screen.webform.pages[i].show_when
        for w, i in screen.definition.steps()
        if w.eid == screen.webform.eid and i > screen.page_index
    ]
    conditions = [f.definition.show_when for f in screen.fields] + later
    earlier = {key for c in conditions for key in condition_keys(c)} - on_page
    stored = drop_hidden(screen.webform, screen.payloads.get(screen.webform.slug, {}))
    return {
        **rules,
        "fields": [f.definition.to_json() for f in screen.fields],
        "groups": [g.definition.to_json() for g in screen.groups],
        # The value of each field of an earlier page that a condition names (what form.js
        # cannot read from the page; a group's field: its value in each entry); a field hidden
        # by its own condition has none.
        "earlier": {key: _earlier_value(stored, key) for key in sorted(earlier)},
        # What decides whether Next or Finish ends this page: the conditions of this webform's
        # later pages (null for one always shown), and whether other webforms follow.
        # The step line follows too: this page's number, and the steps of the webforms after
        # this one (their pages' conditions look at their own webform's fields).
        "next": None
        if screen.preview
        else {
            "later": [show_when_json(c) if c else None for c in later],
            "moreWebforms": screen.webform.eid != screen.definition.webforms[-1].eid,
            "stepNumber": screen.step_number,
            "stepsAfter": _steps_after_webform(screen),
            "title": screen.page.title,
        },
    }


def _earlier_value(stored: dict[str, Any], key: str) -> Any:
    group, _, member = key.partition(".")
    if not member:
        return stored.get(key)
    entries = stored.get(group)
    return (
        [e.get(member) for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    )


def _steps_after_webform(screen: Screen) -> int:
    order = [w.eid for w in screen.definition.webforms]
    here = order.index(screen.webform.eid)
    return sum(1 for webform, _index in screen.steps if order.index(webform.eid) > here)


def page_strings() -> dict[str, str]:
    """What form.js writes on the page, in the reader's language."""
    return {
        "oneProblem": gettext("There is a problem"),
        "problems": gettext("There are {count} problems"),
        "madeSmaller": gettext("Made smaller to send: {before} KB to {after} KB."),
        "next": gettext("Next"),
        "finish": gettext("Finish"),
        "step": gettext("Step {number} of {total}: {title}"),
        "entry": gettext("Entry {number}"),
        "remove": gettext("Remove entry {number}"),
        "removed": gettext("Entry {number} removed."),
        "entryField": gettext("%(group)s, entry %(number)s: %(field)s"),
    }


def event_origins(organization: Organization) -> list[str]:
    return [own_origin(), *embed_origins(organization)]


def form_action(screen: Screen) -> str:
    if screen.preview:
        return ""
    query: dict[str, str] = {}
    if screen.submission is None:
        path = reverse(
            "workflows-start", args=[screen.workflow.organization.slug, screen.workflow.slug]
        )
    else:
        path = links.continue_path(screen.submission)
        query["token"] = links.continue_token(screen.submission)
    if screen.embedded:
        query["embedded"] = "true"
    return f"{path}?{urlencode(query)}" if query else path


def render_screen(request: HttpRequest, screen: Screen) -> HttpResponse:
    organization = screen.workflow.organization
    continue_url = (
        links.continue_url(screen.submission, embedded=screen.embedded)
        if screen.submission is not None
        else ""
    )
    context = {
        "screen": screen,
        "organization": organization,
        "action": form_action(screen),
        "continue_url": continue_url,
        "rules": page_rules(screen),
        "strings": page_strings(),
        "config": {
            "events": screen.events,
            "origins": event_origins(organization),
            "continueUrl": (
                links.continue_link(screen.submission, embedded=screen.embedded)
                if screen.submission is not None
                else ""
            ),
        },
        "regions": [
            (code, {**info, "name": rule_gettext(info["name"])})
            for code, info in PHONE_REGION_INFO.items()
        ],
        "states": US_STATES,
        "image_types": ",".join(IMAGE_TYPES),
        "is_test": screen.submission.is_test if screen.submission else False,
    }
    return framed(render(request, "workflows/form.html", context), organization)


def embed_event(
    action: str, submission: Submission, webform: WebformDef | None, **extra: Any
) -> dict[str, Any]:
    """The keys of the spec's iframe event, for ``action``."""
    workflow = submission.workflow
    row = (
        submission.webform_submissions.filter(webform_eid=webform.eid).first() if webform else None
    )
    event = {
        "action": action,
        "organizationSlug": workflow.organization.slug,
        "organizationEid": workflow.organization.eid,
        "weldEid": workflow.eid,
        "weldDataEid": submission.eid,
        "forgeEid": webform.eid if webform else None,
        "submissionEid": row.eid if row else None,
    }
    event.update(extra)
    return event


def stored_screen(
    submission: Submission,
    definition: WorkflowDef,
    webform: WebformDef,
    page_index: int,
    embedded: bool,
) -> Screen:
    """A page of the submission (which follows ``definition``) with what is stored of it."""
    row = submission.webform_submissions.filter(webform_eid=webform.eid).first()
    payload = dict(row.payload) if row else {}
    return Screen(
        workflow=submission.workflow,
        definition=definition,
        webform=webform,
        page_index=page_index,
        fields=field_views(
            webform,
            page_index,
            payload,
            use_defaults=row is None,
            drafts=row.draft if row else None,
        ),
        groups=group_views(webform, page_index, payload, drafts=row.draft if row else None),
        submission=submission,
        embedded=embedded,
    )


def unread_page(request: HttpRequest, screen: Screen, status: int, message: str) -> HttpResponse:
    """A post refused unread: the page again (nothing of the post can be shown), the message
    beside each image field of the page (the likely cause) and in its summary, or above it."""
    images = [f for f in screen.fields if f.type == "imageFile"]
    for view in images:
        view.text = message
    if not images:
        screen.form_error = message
    response = render_screen(request, screen)
    response.status_code = status
    return response


def end_page(
    request: HttpRequest,
    submission: Submission,
    *,
    embedded: bool,
    events: list[dict[str, Any]] | None = None,
) -> HttpResponse:
    """The last page: the documents, the way to signing, or what became of it."""
    token = links.continue_token(submission)
    documents = []
    if submission.is_complete:
        for index, document in enumerate(submission_files(submission)):
            path = reverse(
                "workflows-document",
                args=[
                    submission.workflow.organization.slug,
                    submission.workflow.slug,
                    submission.eid,
                    index,
                ],
            )
            documents.append({"title": document.title, "url": f"{path}?token={token}"})
    sign_url, waiting_for = "", []
    if submission.status in SIGNING and submission.packet_id:
        signers = list(Signer.objects.filter(packet_id=submission.packet_id))
        turn = next((s for s in signers if is_signers_turn(s)), None)
        if turn is not None and turn.signer_type == Signer.Kind.EMBEDDED:
            # The same link while it lasts (a reload, the back button), a new one once it does
            # not: issued by esign, audited, and never one per page view.
            url = signer_link(signer=turn, reason=AuditAction.SIGNING_URL_CREATED)
            # Marked embedded, not withinIframe: that flag says the legacy signature frame opened
            # the link, and such a page posts the legacy string only (esign/static/esign/embed.js),
            # while the app that frames a workflow hears the event objects.
            sign_url = url + ("&embedded=true" if embedded else "")
        # Names in a sentence, each isolated (FSI ... PDI) for right-to-left pages.
        waiting_for = [isolated(s.name) for s in signers if s.status not in packets.FINISHED_SIGNER]
    zip_path = reverse(
        "workflows-documents-zip",
        args=[submission.workflow.organization.slug, submission.workflow.slug, submission.eid],
    )
    context = {
        "submission": submission,
        "workflow": submission.workflow,
        "documents": documents,
        "answers": answers(
            definition_for(submission),
            payloads_of(submission),
            rule_gettext,
            page_number_format(),
        ),
        "zip_url": f"{zip_path}?token={token}" if documents else "",
        "sign_url": sign_url,
        "waiting_for": waiting_for,
        "embedded": embedded,
        "is_test": submission.is_test,
        "config": {
            "events": events or [],
            "origins": event_origins(submission.workflow.organization),
            "continueUrl": links.continue_link(submission, embedded=embedded),
            "signUrl": sign_url,
        },
    }
    response = render(request, "workflows/done.html", context)
    return framed(response, submission.workflow.organization)
