"""The webform pages people fill: /form/<organization>/<workflow>, one page of fields at a time.

The pages are plain HTML forms that work without a script; workflows/static/workflows/form.js
adds the same checks in the browser (the rules come from workflows.engine.rules) and tells an
embedding page what happened. Every POST re-checks on the server; a refused page comes back
with a message beside each field and everything typed still in it, never a 500.

No cookie is needed, which matters in an iframe where third-party cookies are blocked: a
submission is reached through its continue URL, whose token every form posts back. So the
pages are exempt from CSRF (a forged post can only start a submission, which anyone may, or
change one whose link the forger already holds). Every response carries a
Content-Security-Policy ``frame-ancestors`` of the organization's embedding origins.

A page's post is public, so its size is capped before any of it is read (``_read_post``):
WEBFORM_FIELDS_MAX_BYTES plus WEBFORM_IMAGE_UPLOAD_MAX_BYTES for each image field a page of the
workflow has, by Content-Length (413 unread); uploads are kept in memory (never a temporary file)
and a file growing past WEBFORM_IMAGE_UPLOAD_MAX_BYTES stops the reading (413 too). A page
refused for its values answers 400, with the same page, the messages and its error summary.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from accounts.embedding import allow_framing_by, embed_origins
from accounts.models import Organization
from core.engine.archive import safe_filename
from core.errors import Conflict, NotFound, RequestTooLarge, ServiceError, ValidationFailed
from core.uploads import (
    check_declared_size,
    in_memory_upload_handlers,
    size_text,
    upload_exceeded,
)
from esign import lifecycle
from esign.audit import AuditAction
from esign.models import Signer
from esign.routing import is_signers_turn
from esign.sealing import SealPending
from esign.tokens import signer_link
from workflows import services, submissions
from workflows.engine.definition import FieldDef, WebformDef, WorkflowDef
from workflows.engine.photos import fit_image
from workflows.engine.resolve import Checked, answers, check_form_page, first_page_with_errors
from workflows.engine.rules import (
    IMAGE_MAX_BYTES,
    IMAGE_TYPES,
    IMAGE_UPLOAD_REFUSED,
    IMAGE_UPLOAD_UNREADABLE,
    PHONE_REGION_INFO,
    US_STATES,
    browser_rules,
    form_strings,
    invalid_parts,
)
from workflows.models import Submission, Workflow

Status = Submission.Status
EMBED_FLAGS = ("embedded", "withinIframe")


# --- responses ----------------------------------------------------------------------------------


def _own_origin() -> str:
    parts = urlsplit(settings.PUBLIC_BASE_URL)
    return f"{parts.scheme}://{parts.netloc}"


def _framed(response: HttpResponse, organization: Organization | None) -> HttpResponse:
    """Only the organization's embedding origins (and the service itself) may frame the page."""
    allow_framing_by(response, embed_origins(organization) if organization else [])
    # The continue URL's token never leaves in a Referer to another site; same-origin rather
    # than no-referrer, with which Chromium posts "Origin: null" and CSRF checks (the admin's
    # preview) refuse the form.
    response["Referrer-Policy"] = "same-origin"
    return response


def _message(
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
    return _framed(response, organization)


def _embedded(request: HttpRequest) -> bool:
    return _embedded_by_address(request) or any(
        request.POST.get(flag) == "true" for flag in EMBED_FLAGS
    )


def _embedded_by_address(request: HttpRequest) -> bool:
    """The flag in the address alone, for an answer given before the body is read."""
    return any(request.GET.get(flag) == "true" for flag in EMBED_FLAGS)


# --- what a page shows --------------------------------------------------------------------------


@dataclass
class FieldView:
    """One field as the template draws it."""

    definition: FieldDef
    strings: dict[str, str]
    error: str = ""

    @property
    def key(self) -> str:
        return self.definition.key

    @property
    def type(self) -> str:
        return self.definition.type

    @property
    def id(self) -> str:
        return f"f-{self.definition.key}"

    @property
    def value(self) -> str:
        return self.strings.get(self.definition.key, "")

    def part(self, name: str) -> str:
        return self.strings.get(f"{self.definition.key}.{name}", "")

    @property
    def parts(self) -> dict[str, str]:
        prefix = f"{self.definition.key}."
        return {k[len(prefix) :]: v for k, v in self.strings.items() if k.startswith(prefix)}

    @property
    def checked(self) -> bool:
        return bool(self.strings.get(self.definition.key))

    @property
    def region(self) -> str:
        return self.part("region") or self.definition.base_region

    @property
    def invalid_parts(self) -> tuple[str, ...]:
        """The parts the error is about (the others, optional ones included, stay unmarked)."""
        return invalid_parts(self.definition, self.parts, self.error)

    @property
    def image(self) -> str:
        value = self.value
        return value if value.startswith("data:image/") else ""


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

    @property
    def page(self) -> Any:
        return self.webform.pages[self.page_index]

    @property
    def steps(self) -> list[tuple[WebformDef, int]]:
        return list(self.definition.steps())

    @property
    def step_number(self) -> int:
        for number, (webform, index) in enumerate(self.steps, start=1):
            if webform.eid == self.webform.eid and index == self.page_index:
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
    def errors(self) -> list[FieldView]:
        return [f for f in self.fields if f.error]

    @property
    def preview_links(self) -> list[tuple[str, str, bool]]:
        """Every page of the preview: its label, address and whether it is this one."""
        return [
            (
                f"{number}. {webform.name}: {webform.pages[index].title}",
                "?" + urlencode({"forge": webform.slug, "page": index}),
                webform.eid == self.webform.eid and index == self.page_index,
            )
            for number, (webform, index) in enumerate(self.steps, start=1)
        ]


def _field_views(
    webform: WebformDef,
    page_index: int,
    values: dict[str, Any],
    errors: dict[str, str] | None = None,
    *,
    use_defaults: bool,
    drafts: Mapping[str, Mapping[str, str]] | None = None,
) -> list[FieldView]:
    """The page's fields with ``values``; a field with a draft (typed, then left by Back
    unchecked) shows it instead."""
    views = []
    for definition in webform.pages[page_index].fields:
        value = values.get(definition.key)
        if value is None and use_defaults:
            value = definition.default
        draft = (drafts or {}).get(definition.key)
        views.append(
            FieldView(
                definition=definition,
                strings=dict(draft) if draft is not None else form_strings(definition, value),
                error=(errors or {}).get(definition.key, ""),
            )
        )
    return views


def _rules(screen: Screen) -> dict[str, Any]:
    rules = browser_rules()
    rules["limits"]["imageUploadBytes"] = settings.WEBFORM_IMAGE_UPLOAD_MAX_BYTES
    return {**rules, "fields": [f.definition.to_json() for f in screen.fields]}


def _origins(organization: Organization) -> list[str]:
    return [_own_origin(), *embed_origins(organization)]


def _form_action(screen: Screen) -> str:
    if screen.preview:
        return ""
    query: dict[str, str] = {}
    if screen.submission is None:
        path = reverse(
            "workflows-start", args=[screen.workflow.organization.slug, screen.workflow.slug]
        )
    else:
        path = submissions.continue_path(screen.submission)
        query["token"] = submissions.continue_token(screen.submission)
    if screen.embedded:
        query["embedded"] = "true"
    return f"{path}?{urlencode(query)}" if query else path


def _render_screen(request: HttpRequest, screen: Screen) -> HttpResponse:
    organization = screen.workflow.organization
    continue_url = (
        submissions.continue_url(screen.submission, embedded=screen.embedded)
        if screen.submission is not None
        else ""
    )
    context = {
        "screen": screen,
        "organization": organization,
        "action": _form_action(screen),
        "continue_url": continue_url,
        "rules": _rules(screen),
        "config": {
            "events": screen.events,
            "origins": _origins(organization),
            "continueUrl": (
                submissions.continue_link(screen.submission, embedded=screen.embedded)
                if screen.submission is not None
                else ""
            ),
        },
        "regions": [(code, info) for code, info in PHONE_REGION_INFO.items()],
        "states": US_STATES,
        "image_types": ",".join(IMAGE_TYPES),
        "is_test": screen.submission.is_test if screen.submission else False,
    }
    return _framed(render(request, "workflows/form.html", context), organization)


# --- events for the embedding page --------------------------------------------------------------


def _event(
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


def _last_webform(submission: Submission) -> WebformDef | None:
    definition = submissions.definition_for(submission)
    return definition.webforms[-1] if definition.webforms else None


# --- where a person is --------------------------------------------------------------------------


def _position(submission: Submission) -> tuple[WebformDef, int] | None:
    """The first webform not complete, at its saved step; None when all are complete."""
    definition = submissions.definition_for(submission)
    rows = {row.webform_eid: row for row in submission.webform_submissions.all()}
    for webform in definition.webforms:
        row = rows.get(webform.eid)
        if row is None or row.completed_at is None:
            step = row.current_step if row else 0
            return webform, min(step, len(webform.pages) - 1)
    return None


def _requested(
    submission: Submission, forge: str | None, step: str | None
) -> tuple[WebformDef, int] | None:
    """A page asked for by ``?forge=<slug>&step=<n>``: any page before where the person is."""
    current = _position(submission)
    if current is None or not forge:
        return current
    definition = submissions.definition_for(submission)
    order = [w.eid for w in definition.webforms]
    webform = definition.webform(slug=forge)
    try:
        index = int(step or 0)
    except ValueError:
        return current
    if webform is None or not 0 <= index < len(webform.pages):
        return current
    before = order.index(webform.eid) < order.index(current[0].eid)
    if before or (webform.eid == current[0].eid and index <= current[1]):
        return webform, index
    return current


def _previous(
    definition: WorkflowDef, webform: WebformDef, page_index: int
) -> tuple[WebformDef, int]:
    steps = list(definition.steps())
    position = next(i for i, (w, p) in enumerate(steps) if w.eid == webform.eid and p == page_index)
    return steps[max(position - 1, 0)]


# --- the pages ----------------------------------------------------------------------------------


def _workflow_for(organization_slug: str, workflow_slug: str) -> Workflow:
    workflow = (
        Workflow.objects.select_related("organization")
        .filter(organization__slug=organization_slug, slug=workflow_slug)
        .first()
    )
    if workflow is None:
        raise NotFound("There is no such form.")
    return workflow


@csrf_exempt  # see the module's docstring
@xframe_options_exempt  # framing is governed by the CSP frame-ancestors of _framed
@require_http_methods(["GET", "POST"])
def start(request: HttpRequest, organization_slug: str, workflow_slug: str) -> HttpResponse:
    """The first page; its POST starts a submission."""
    try:
        workflow = _workflow_for(organization_slug, workflow_slug)
        running = services.running_definition(workflow, published_only=True)
    except NotFound as missing:
        return _message(request, "Form not found", missing.message, status=404)
    definition = running.definition
    webform = definition.webforms[0]

    def first_page(embedded: bool) -> Screen:
        return Screen(
            workflow=workflow,
            definition=definition,
            webform=webform,
            page_index=0,
            fields=_field_views(webform, 0, {}, use_defaults=True),
            embedded=embedded,
        )

    if request.method == "POST":
        problem = _read_post(request, definition)
        if problem is not None:
            return _unread(request, first_page(_embedded_by_address(request)), *problem)
    embedded = _embedded(request)
    if request.method == "GET":
        return _render_screen(request, first_page(embedded))
    return _post_page(
        request,
        workflow=workflow,
        definition=definition,
        submission=None,
        running=running,
        webform=webform,
        page_index=0,
        embedded=embedded,
    )


@csrf_exempt  # see the module's docstring
@xframe_options_exempt
@require_http_methods(["GET", "POST"])
def resume(
    request: HttpRequest, organization_slug: str, workflow_slug: str, eid: str
) -> HttpResponse:
    """The continue URL: the page a person is on, any earlier page, or the end."""
    if request.method == "POST":
        refused = _read_resumed_post(request, organization_slug, workflow_slug, eid)
        if refused is not None:
            return refused
    token = request.GET.get("token") or request.POST.get("token") or ""
    try:
        submission = submissions.submission_for_link(
            organization_slug=organization_slug, workflow_slug=workflow_slug, eid=eid, token=token
        )
    except NotFound as missing:
        return _message(request, "Link not valid", missing.message, status=404)
    submission = submissions.submission_sync(submission)
    embedded = _embedded(request)
    if submission.status not in submissions.OPEN:
        events = []
        if request.GET.get("signerEid") and submission.is_complete:
            # Back from signing: the embedding page learns that the whole workflow is done.
            events.append(_event("weldComplete", submission, _last_webform(submission)))
        return _end(request, submission, embedded=embedded, events=events)
    definition = submissions.definition_for(submission)
    if request.method == "GET":
        where = _requested(submission, request.GET.get("forge"), request.GET.get("step"))
        if where is None:  # every webform complete, still being finished
            return _end(request, submission, embedded=embedded)
        webform, page_index = where
        return _render_screen(request, _stored_screen(submission, webform, page_index, embedded))
    webform = definition.webform(eid=request.POST.get("forge", ""))
    try:
        page_index = int(request.POST.get("page", "0"))
    except ValueError:
        page_index = -1
    if webform is None or not 0 <= page_index < len(webform.pages):
        where = _position(submission)
        if where is None:
            return _end(request, submission, embedded=embedded)
        screen = _stored_screen(submission, *where, embedded)
        screen.form_error = "That page could not be found; here is where you are."
        return _render_screen(request, screen)
    return _post_page(
        request,
        workflow=submission.workflow,
        definition=definition,
        submission=submission,
        running=None,
        webform=webform,
        page_index=page_index,
        embedded=embedded,
    )


def _stored_screen(
    submission: Submission, webform: WebformDef, page_index: int, embedded: bool
) -> Screen:
    row = submission.webform_submissions.filter(webform_eid=webform.eid).first()
    payload = dict(row.payload) if row else {}
    return Screen(
        workflow=submission.workflow,
        definition=submissions.definition_for(submission),
        webform=webform,
        page_index=page_index,
        fields=_field_views(
            webform,
            page_index,
            payload,
            use_defaults=row is None,
            drafts=row.draft if row else None,
        ),
        submission=submission,
        embedded=embedded,
    )


def _post_cap(definition: WorkflowDef) -> int:
    """The largest post a page of ``definition`` may send: its fields, plus one image file for
    each image field of the page that has the most."""
    images = max(
        (
            sum(1 for f in page.fields if f.type == "imageFile")
            for webform in definition.webforms
            for page in webform.pages
        ),
        default=0,
    )
    return settings.WEBFORM_FIELDS_MAX_BYTES + images * settings.WEBFORM_IMAGE_UPLOAD_MAX_BYTES


def _read_post(request: HttpRequest, definition: WorkflowDef | None) -> tuple[int, str] | None:
    """Read a page's post within its cap; the status and message of a refusal, else None.
    Runs before anything reads ``request.POST`` (the body is parsed once, on first use)."""
    limit = _post_cap(definition) if definition is not None else settings.WEBFORM_FIELDS_MAX_BYTES
    too_large = (
        f"What was sent is larger than this form takes ({size_text(limit)} in all, "
        f"{size_text(settings.WEBFORM_IMAGE_UPLOAD_MAX_BYTES)} for an image), so nothing was "
        "saved. Choose a smaller image and send the page again."
    )
    try:
        check_declared_size(request, limit=limit, message=too_large)
    except RequestTooLarge as error:
        return error.status, error.message
    request.upload_handlers = in_memory_upload_handlers(
        request, file_limit=settings.WEBFORM_IMAGE_UPLOAD_MAX_BYTES
    )
    try:
        if upload_exceeded(request):
            return RequestTooLarge.status, too_large
    except MultiPartParserError:
        return ValidationFailed.status, "The page could not be read. Send it again."
    return None


def _read_resumed_post(
    request: HttpRequest, organization_slug: str, workflow_slug: str, eid: str
) -> HttpResponse | None:
    """``_read_post`` for a continue URL: capped by the submission's own version when the link
    in the address is valid (the pages' forms always post to it), else by the fields alone."""
    try:
        submission = submissions.submission_for_link(
            organization_slug=organization_slug,
            workflow_slug=workflow_slug,
            eid=eid,
            token=request.GET.get("token", ""),
        )
    except NotFound:
        submission = None
    definition = submissions.definition_for(submission) if submission else None
    problem = _read_post(request, definition)
    if problem is None:
        return None
    if submission is None or submission.status not in submissions.OPEN:
        return _message(request, "Not sent", problem[1], status=problem[0])
    where = _position(submission)
    embedded = _embedded_by_address(request)
    if where is None:
        return _end(request, submission, embedded=embedded)
    return _unread(request, _stored_screen(submission, *where, embedded), *problem)


def _unread(request: HttpRequest, screen: Screen, status: int, message: str) -> HttpResponse:
    """A post refused unread: the page again (nothing of the post can be shown), the message
    beside each image field of the page (the likely cause) and in its summary, or above it."""
    images = [f for f in screen.fields if f.type == "imageFile"]
    for view in images:
        view.error = message
    if not images:
        screen.form_error = message
    response = _render_screen(request, screen)
    response.status_code = status
    return response


def _posted(request: HttpRequest, webform: WebformDef, page_index: int) -> dict[str, str | None]:
    """The page's inputs; an uploaded image becomes the data: URL the image field holds (its
    bytes are checked by the image rule to be the image its type claims)."""
    values: dict[str, str | None] = {k: request.POST.get(k) for k in request.POST}
    for definition in webform.pages[page_index].fields:
        if definition.type != "imageFile":
            continue
        upload = request.FILES.get(f"{definition.key}.file")
        if upload is None:
            continue
        mime = (upload.content_type or "").lower()
        if mime not in IMAGE_TYPES:
            values[definition.key] = IMAGE_UPLOAD_REFUSED  # the image rule says why
            continue
        # A phone's photo is made small enough here (the page's script did it already where
        # it could); the reading stopped at WEBFORM_IMAGE_UPLOAD_MAX_BYTES (_read_post).
        fitted = fit_image(upload.read(), mime, max_bytes=IMAGE_MAX_BYTES)
        if fitted is None:
            values[definition.key] = IMAGE_UPLOAD_UNREADABLE
        else:
            encoded = base64.b64encode(fitted.data).decode()
            values[definition.key] = f"data:{fitted.mime};base64,{encoded}"
    return values


def _post_page(
    request: HttpRequest,
    *,
    workflow: Workflow,
    definition: WorkflowDef,
    submission: Submission | None,
    running: services.Running | None,
    webform: WebformDef,
    page_index: int,
    embedded: bool,
) -> HttpResponse:
    back = request.POST.get("action") == "back"
    values = _posted(request, webform, page_index)
    raw, checked = check_form_page(webform, page_index, values.get, enforce_required=not back)
    page_fields = webform.pages[page_index].fields
    draft: dict[str, dict[str, str]] = {}
    if back:
        # Back never blocks: what passes is saved, what does not yet is kept as typed (the
        # row's draft) and shown again, without a message, when the person returns.
        draft = {
            f.key: form_strings(f, raw.get(f.key)) for f in page_fields if f.key in checked.errors
        }
        checked = Checked(values=checked.values)

    def again(errors: dict[str, str], form_error: str = "") -> HttpResponse:
        """The same page, as typed, with the messages."""
        screen = Screen(
            workflow=workflow,
            definition=definition,
            webform=webform,
            page_index=page_index,
            fields=_field_views(webform, page_index, raw, errors, use_defaults=False),
            submission=submission,
            embedded=embedded,
            form_error=form_error,
        )
        response = _render_screen(request, screen)
        response.status_code = ValidationFailed.status
        return response

    if not checked.ok:
        return again(checked.errors)
    last_page = page_index == len(webform.pages) - 1
    complete = not back and last_page
    # The step the person goes to: the next page, the previous one, or this last one.
    step = max(page_index - 1, 0) if back else min(page_index + 1, len(webform.pages) - 1)
    try:
        saved = submissions.webform_save(
            workflow=workflow,
            webform=webform,
            checked=checked,
            submission=submission,
            running=running,
            current_step=step,
            complete=complete,
            embedded=embedded,
            page_keys=tuple(f.key for f in page_fields),
            draft=draft,
        )
    except ValidationFailed as failure:
        return _refused(request, submission, webform, page_index, failure, again, embedded)
    except Conflict:
        assert submission is not None
        return _end(request, submission, embedded=embedded)
    submission = saved.submission
    events = []
    if not back:
        page = webform.pages[page_index]
        events.append(
            _event("forgeSubmitPage", submission, webform, pageId=page.id, pageIndex=page_index)
        )
    if saved.completed_webform:
        events.append(_event("forgeComplete", submission, webform))
    if saved.finished:
        if submission.is_complete:
            events.append(_event("weldComplete", submission, webform))
        return _end(request, submission, embedded=embedded, events=events)
    if back:
        target = _previous(definition, webform, page_index)
    else:
        target = _position(submission) or (webform, page_index)
    screen = _stored_screen(submission, *target, embedded)
    screen.events = events
    return _render_screen(request, screen)


def _refused(
    request: HttpRequest,
    submission: Submission | None,
    webform: WebformDef,
    page_index: int,
    failure: ValidationFailed,
    again: Any,
    embedded: bool,
) -> HttpResponse:
    """A save the service refused. Missing values of this page are shown on it; of an earlier
    page, that page is shown with them (the person skipped it); anything else (a document that
    could not be filled) is said above the form, which keeps what was typed."""
    by_key = {
        f.property.removeprefix("payload."): f.message
        for f in failure.fields
        if f.property.startswith("payload.")
    }
    here = {f.key for f in webform.pages[page_index].fields}
    if by_key and set(by_key) <= here:
        return again(by_key)
    if by_key and submission is not None:
        index = first_page_with_errors(webform, by_key)
        payload = submissions.payloads_of(submission).get(webform.slug, {})
        screen = Screen(
            workflow=submission.workflow,
            definition=submissions.definition_for(submission),
            webform=webform,
            page_index=index,
            fields=_field_views(webform, index, payload, by_key, use_defaults=False),
            submission=submission,
            embedded=embedded,
        )
        response = _render_screen(request, screen)
        response.status_code = ValidationFailed.status
        return response
    return again(
        by_key,
        "Your answers could not be turned into documents, so nothing was saved yet: "
        + failure.message
        + " Check your answers and try again, or tell the organization that sent you here.",
    )


def _end(
    request: HttpRequest,
    submission: Submission,
    *,
    embedded: bool,
    events: list[dict[str, Any]] | None = None,
) -> HttpResponse:
    """The last page: the documents, the way to signing, or what became of it."""
    token = submissions.continue_token(submission)
    documents = []
    if submission.is_complete:
        for index, document in enumerate(submissions.submission_files(submission)):
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
    if submission.status in submissions.SIGNING and submission.packet_id:
        signers = list(Signer.objects.filter(packet_id=submission.packet_id))
        turn = next((s for s in signers if is_signers_turn(s)), None)
        if turn is not None and turn.signer_type == Signer.Kind.EMBEDDED:
            # The same link while it lasts (a reload, the back button), a new one once it does
            # not: issued by esign, audited, and never one per page view.
            url = signer_link(signer=turn, reason=AuditAction.SIGNING_URL_CREATED)
            sign_url = url + ("&withinIframe=true" if embedded else "")
        waiting_for = [s.name for s in signers if s.status not in lifecycle.FINISHED_SIGNER]
    zip_path = reverse(
        "workflows-documents-zip",
        args=[submission.workflow.organization.slug, submission.workflow.slug, submission.eid],
    )
    context = {
        "submission": submission,
        "workflow": submission.workflow,
        "documents": documents,
        "answers": answers(
            submissions.definition_for(submission), submissions.payloads_of(submission)
        ),
        "zip_url": f"{zip_path}?token={token}" if documents else "",
        "sign_url": sign_url,
        "waiting_for": waiting_for,
        "embedded": embedded,
        "is_test": submission.is_test,
        "config": {
            "events": events or [],
            "origins": _origins(submission.workflow.organization),
            "continueUrl": submissions.continue_link(submission, embedded=embedded),
            "signUrl": sign_url,
        },
    }
    response = render(request, "workflows/done.html", context)
    return _framed(response, submission.workflow.organization)


@xframe_options_exempt
@require_GET
def document(
    request: HttpRequest, organization_slug: str, workflow_slug: str, eid: str, index: str
) -> HttpResponse:
    """One document of a completed submission, for the person who filled it (token)."""
    try:
        submission = submissions.submission_for_link(
            organization_slug=organization_slug,
            workflow_slug=workflow_slug,
            eid=eid,
            token=request.GET.get("token", ""),
        )
    except NotFound as missing:
        return _message(request, "Link not valid", missing.message, status=404)
    submission = submissions.submission_sync(submission)
    files = submissions.submission_files(submission) if submission.is_complete else []
    number = int(index)
    if number >= len(files):
        return _message(
            request,
            "Document not found",
            "There is no such document.",
            status=404,
            organization=submission.workflow.organization,
        )
    try:
        data = files[number].read()
    except ServiceError as error:  # signed, not sealed yet: sealed or nothing, as the zip
        return _no_documents(request, error)
    response = HttpResponse(data, content_type="application/pdf")
    filename = safe_filename(files[number].filename, f"document{number + 1}.pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return _framed(response, submission.workflow.organization)


@require_GET
def documents_zip(
    request: HttpRequest, organization_slug: str, workflow_slug: str, eid: str
) -> HttpResponse:
    """Every document of a completed submission as a zip, for the person who filled it."""
    try:
        submission = submissions.submission_for_link(
            organization_slug=organization_slug,
            workflow_slug=workflow_slug,
            eid=eid,
            token=request.GET.get("token", ""),
        )
        data, filename = submissions.documents_zip(submission)
    except ServiceError as error:
        return _no_documents(request, error)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _no_documents(request: HttpRequest, error: ServiceError) -> HttpResponse:
    """Why there is nothing to download yet; while sealing, when to come back."""
    response = _message(request, "No documents", error.message, status=error.status)
    if isinstance(error, SealPending):
        response["Retry-After"] = str(error.retry_after_seconds)
    return response


@xframe_options_exempt
@require_GET
def embed_demo(request: HttpRequest, organization_slug: str, workflow_slug: str) -> HttpResponse:
    """What an integrator's page does: frame the workflow and listen to its events."""
    try:
        workflow = _workflow_for(organization_slug, workflow_slug)
    except NotFound as missing:
        return _message(request, "Form not found", missing.message, status=404)
    form_url = services.start_url(workflow) + "?embedded=true"
    context = {
        "workflow": workflow,
        "form_url": form_url,
        "service_origin": _own_origin(),
        "snippet": _snippet(form_url),
    }
    return _framed(render(request, "workflows/embed_demo.html", context), workflow.organization)


def _snippet(form_url: str) -> str:
    origin = json.dumps(_own_origin())
    return (
        f'<iframe src="{form_url}" title="Form" style="width:100%;height:720px;border:0">'
        '</iframe>\n<script>\nwindow.addEventListener("message", (event) => {\n'
        f"  if (event.origin !== {origin}) return;\n"
        "  const { action, weldDataEid, forgeEid, submissionEid } = event.data;\n"
        "  console.log(action, weldDataEid, forgeEid, submissionEid);\n"
        "});\n</script>"
    )


def preview(request: HttpRequest, workflow: Workflow) -> HttpResponse:
    """The admin's preview of the working version: every page, checked as people's are, with
    nothing saved. ``?forge=<slug>&page=<n>`` picks the page."""
    definition = services.definition_of(workflow)
    if not definition.webforms or not any(w.pages for w in definition.webforms):
        return _message(
            request, "Nothing to preview", "Add a webform with a page first.", status=200
        )
    webform = definition.webform(slug=request.GET.get("forge", "")) or definition.webforms[0]
    if not webform.pages:
        webform = next(w for w in definition.webforms if w.pages)
    try:
        page_index = min(max(int(request.GET.get("page", "0")), 0), len(webform.pages) - 1)
    except ValueError:
        page_index = 0
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    note = ""
    if request.method == "POST":
        raw, checked = check_form_page(
            webform, page_index, _posted(request, webform, page_index).get
        )
        values, errors = raw, checked.errors
        note = "" if errors else "Every field of this page passes its checks (nothing is saved)."
    screen = Screen(
        workflow=workflow,
        definition=definition,
        webform=webform,
        page_index=page_index,
        fields=_field_views(webform, page_index, values, errors, use_defaults=not values),
        preview=True,
        form_error=note,
    )
    return _render_screen(request, screen)
