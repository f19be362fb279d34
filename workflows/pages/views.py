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

A page's post is public, so its size is capped before any of it is read (``read_post``):
WEBFORM_FIELDS_MAX_BYTES plus WEBFORM_IMAGE_UPLOAD_MAX_BYTES for each image field a page of the
workflow has, by Content-Length (413 unread); uploads are kept in memory (never a temporary file)
and a file growing past WEBFORM_IMAGE_UPLOAD_MAX_BYTES stops the reading (413 too). A page
refused for its values answers 400, with the same page, the messages and its error summary.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from core.engine.archive import safe_filename
from core.errors import Conflict, NotFound, ServiceError
from core.responses import file_response
from esign.sealing import SealFailed, SealPending
from workflows.definitions import versions
from workflows.definitions.rows import definition_of
from workflows.engine.definition import WorkflowDef
from workflows.engine.messages import Message
from workflows.engine.resolve import check_form_page
from workflows.models import Submission, Workflow
from workflows.pages.fields import field_views, group_views
from workflows.pages.input import posted_values, read_post
from workflows.pages.numbers import page_number_format
from workflows.pages.post import post_page
from workflows.pages.screens import (
    Screen,
    embed_event,
    end_page,
    framed,
    is_embedded,
    is_embedded_by_address,
    message_page,
    own_origin,
    render_screen,
    stored_screen,
    unread_page,
)
from workflows.pages.steps import last_webform, position_of, requested_page
from workflows.submissions import files as documents
from workflows.submissions.finish import submission_sync
from workflows.submissions.links import submission_for_link
from workflows.submissions.reads import OPEN, definition_for
from workflows.submissions.save import loaded_new, loaded_submission

Status = Submission.Status


# --- the pages ----------------------------------------------------------------------------------


def _workflow_for(organization_slug: str, workflow_slug: str) -> Workflow:
    workflow = (
        Workflow.objects.select_related("organization")
        .filter(organization__slug=organization_slug, slug=workflow_slug)
        .first()
    )
    if workflow is None:
        raise NotFound(gettext("There is no such form."))
    return workflow


@csrf_exempt  # see the module's docstring
@xframe_options_exempt  # framing is governed by the CSP frame-ancestors of framed
@require_http_methods(["GET", "POST"])
def start(request: HttpRequest, organization_slug: str, workflow_slug: str) -> HttpResponse:
    """The first page; its POST starts a submission."""
    try:
        workflow = _workflow_for(organization_slug, workflow_slug)
        running = versions.running_definition(workflow, published_only=True)
    except NotFound as missing:
        return message_page(request, gettext("Form not found"), missing.message, status=404)
    definition = running.definition
    webform = definition.webforms[0]

    def first_page(embedded: bool) -> Screen:
        return Screen(
            workflow=workflow,
            definition=definition,
            webform=webform,
            page_index=0,
            fields=field_views(webform, 0, {}, use_defaults=True),
            groups=group_views(webform, 0, {}),
            embedded=embedded,
        )

    if request.method == "POST":
        problem = read_post(request, definition)
        if problem is not None:
            return unread_page(request, first_page(is_embedded_by_address(request)), *problem)
    embedded = is_embedded(request)
    if request.method == "GET":
        return render_screen(request, first_page(embedded))
    return post_page(
        request,
        workflow=workflow,
        loaded=loaded_new(running),
        webform=webform,
        page_index=0,
        embedded=embedded,
    )


def _linked(
    request: HttpRequest,
    organization_slug: str,
    workflow_slug: str,
    eid: str,
    *,
    token: str | None = None,
) -> Submission:
    """The submission of a continue or download link (NotFound if the link is not valid); its
    token from the address unless given."""
    return submission_for_link(
        organization_slug=organization_slug,
        workflow_slug=workflow_slug,
        eid=eid,
        token=request.GET.get("token", "") if token is None else token,
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
        submission = _linked(request, organization_slug, workflow_slug, eid, token=token)
    except NotFound as missing:
        return message_page(request, gettext("Link not valid"), missing.message, status=404)
    submission = submission_sync(submission)
    embedded = is_embedded(request)
    if submission.status not in OPEN:
        events = []
        if request.GET.get("signerEid") and submission.is_complete:
            # Back from signing: the embedding page learns that the whole workflow is done.
            last = last_webform(definition_for(submission))
            events.append(embed_event("weldComplete", submission, last))
        return end_page(request, submission, embedded=embedded, events=events)
    definition = definition_for(submission)
    if request.method == "GET":
        where = requested_page(
            submission, definition, request.GET.get("forge"), request.GET.get("step")
        )
        if where is None:  # every webform complete, still being finished
            return end_page(request, submission, embedded=embedded)
        webform, page_index = where
        screen = stored_screen(submission, definition, webform, page_index, embedded)
        return render_screen(request, screen)
    webform = definition.webform(eid=request.POST.get("forge", ""))
    try:
        page_index = int(request.POST.get("page", "0"))
    except ValueError:
        page_index = -1
    if webform is None or not 0 <= page_index < len(webform.pages):
        where = position_of(submission, definition)
        if where is None:
            return end_page(request, submission, embedded=embedded)
        screen = stored_screen(submission, definition, *where, embedded)
        screen.form_error = gettext("That page could not be found; here is where you are.")
        return render_screen(request, screen)
    return post_page(
        request,
        workflow=submission.workflow,
        loaded=loaded_submission(submission, definition),
        webform=webform,
        page_index=page_index,
        embedded=embedded,
    )


def _read_resumed_post(
    request: HttpRequest, organization_slug: str, workflow_slug: str, eid: str
) -> HttpResponse | None:
    """``read_post`` for a continue URL: capped by the submission's own version when the link
    in the address is valid (the pages' forms always post to it), else by the fields alone."""
    try:
        submission = _linked(request, organization_slug, workflow_slug, eid)
    except NotFound:
        submission = None
    definition = definition_for(submission) if submission else None
    problem = read_post(request, definition)
    if problem is None:
        return None
    if submission is None or submission.status not in OPEN:
        return message_page(request, gettext("Not sent"), problem[1], status=problem[0])
    assert definition is not None  # read above, as the submission is
    where = position_of(submission, definition)
    embedded = is_embedded_by_address(request)
    if where is None:
        return end_page(request, submission, embedded=embedded)
    return unread_page(request, stored_screen(submission, definition, *where, embedded), *problem)


@xframe_options_exempt
@require_GET
def document(
    request: HttpRequest, organization_slug: str, workflow_slug: str, eid: str, index: str
) -> HttpResponse:
    """One document of a completed submission, for the person who filled it (token)."""
    try:
        submission = _linked(request, organization_slug, workflow_slug, eid)
    except NotFound as missing:
        return message_page(request, gettext("Link not valid"), missing.message, status=404)
    submission = submission_sync(submission)
    files = documents.submission_files(submission) if submission.is_complete else []
    number = int(index)
    if number >= len(files):
        return message_page(
            request,
            gettext("Document not found"),
            gettext("There is no such document."),
            status=404,
            organization=submission.workflow.organization,
        )
    try:
        data = files[number].read()
    except ServiceError as error:  # signed, not sealed yet: sealed or nothing, as the zip
        return _no_documents(request, error)
    filename = safe_filename(files[number].filename, f"document{number + 1}.pdf")
    response = file_response(
        data, filename=filename, content_type="application/pdf", attachment=False
    )
    return framed(response, submission.workflow.organization)


@require_GET
def documents_zip(
    request: HttpRequest, organization_slug: str, workflow_slug: str, eid: str
) -> HttpResponse:
    """Every document of a completed submission as a zip, for the person who filled it."""
    try:
        submission = _linked(request, organization_slug, workflow_slug, eid)
        data, filename = documents.documents_zip(submission)
    except ServiceError as error:
        return _no_documents(request, error)
    return file_response(data, filename=filename, content_type="application/zip")


def _no_documents(request: HttpRequest, error: ServiceError) -> HttpResponse:
    """Why there is nothing to download yet; while sealing, when to come back."""
    response = message_page(
        request, gettext("No documents"), _why_no_documents(error), status=error.status
    )
    if isinstance(error, SealPending):
        response["Retry-After"] = str(error.retry_after_seconds)
    return response


def _why_no_documents(error: ServiceError) -> str:
    """The page's words for ``error``, in the reader's language: the error's own message is the
    API's, in English (the same download answers API keys at /download/<eid>.zip)."""
    if isinstance(error, SealPending):
        return gettext(
            "Everyone has signed; the documents are being sealed. Try again in %(seconds)s seconds."
        ) % {"seconds": error.retry_after_seconds}
    if isinstance(error, SealFailed):
        return gettext(
            "The documents could not be sealed. The service's operators have been told and "
            "will seal them again."
        )
    if isinstance(error, Conflict):
        return gettext(
            "The documents can be downloaded once every page is complete and everyone has signed."
        )
    if isinstance(error, NotFound):
        return gettext("This link is not valid: open the link you were given, whole.")
    return error.message


@xframe_options_exempt
@require_GET
def embed_demo(request: HttpRequest, organization_slug: str, workflow_slug: str) -> HttpResponse:
    """What an integrator's page does: frame the workflow and listen to its events."""
    try:
        workflow = _workflow_for(organization_slug, workflow_slug)
    except NotFound as missing:
        return message_page(request, gettext("Form not found"), missing.message, status=404)
    form_url = versions.start_url(workflow) + "?embedded=true"
    context = {
        "workflow": workflow,
        "form_url": form_url,
        "service_origin": own_origin(),
        "snippet": _snippet(form_url),
    }
    return framed(render(request, "workflows/embed_demo.html", context), workflow.organization)


def _snippet(form_url: str) -> str:
    origin = json.dumps(own_origin())
    return (
        f'<iframe src="{form_url}" title="Form" style="width:100%;height:720px;border:0">'
        '</iframe>\n<script>\nwindow.addEventListener("message", (event) => {\n'
        f"  if (event.origin !== {origin}) return;\n"
        "  const { action, weldDataEid, forgeEid, submissionEid } = event.data;\n"
        "  console.log(action, weldDataEid, forgeEid, submissionEid);\n"
        "});\n</script>"
    )


def preview(
    request: HttpRequest, workflow: Workflow, definition: WorkflowDef | None = None
) -> HttpResponse:
    """The admin's preview of the working version (or of ``definition``, the webform builder's
    draft): every page, checked as people's are, with nothing saved. ``?forge=<slug>&page=<n>``
    picks the page."""
    definition = definition or definition_of(workflow)
    if not definition.webforms or not any(w.pages for w in definition.webforms):
        return message_page(
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
    errors: dict[str, Message] = {}
    note = ""
    if request.method == "POST":
        raw, checked = check_form_page(
            webform,
            page_index,
            posted_values(request, webform, page_index).get,
            number_format=page_number_format(),
        )
        values, errors = raw, checked.errors
        note = "" if errors else "Every field of this page passes its checks (nothing is saved)."
    screen = Screen(
        workflow=workflow,
        definition=definition,
        webform=webform,
        page_index=page_index,
        fields=field_views(webform, page_index, values, errors, use_defaults=not values),
        groups=group_views(webform, page_index, values, errors),
        preview=True,
        form_error=note,
    )
    return render_screen(request, screen)
