"""A webform page's post: checked as the page's rules say, then saved (``webform_save``), and
the page the person goes to: the next shown page, the one before (Back), the same page with
its messages, or the end. Without the page's script, a post also adds or removes an entry of a
repeating group. A post that would start a submission is limited per client address
(workflows/submissions/limit.py). See workflows/pages/views.py for the pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext

from core.errors import Conflict, ValidationFailed
from workflows.engine.definition import WebformDef
from workflows.engine.form_inputs import form_strings
from workflows.engine.messages import Message
from workflows.engine.resolve import (
    Checked,
    check_form_page,
    drop_hidden,
    first_page_with_errors,
    merged,
)
from workflows.models import Submission, Workflow
from workflows.pages.fields import field_views, group_strings, group_views
from workflows.pages.input import posted_values
from workflows.pages.numbers import page_number_format
from workflows.pages.screens import Screen, embed_event, end_page, render_screen, stored_screen
from workflows.pages.steps import next_page, position_of, previous_page, shown_pages
from workflows.submissions.limit import new_submission_wait, too_many_message
from workflows.submissions.reads import payloads_of
from workflows.submissions.save import Loaded, PayloadInvalid, SaveRequest, webform_save


def post_page(
    request: HttpRequest,
    *,
    workflow: Workflow,
    loaded: Loaded,
    webform: WebformDef,
    page_index: int,
    embedded: bool,
) -> HttpResponse:
    """A post of page ``page_index`` of ``webform``, to the submission ``loaded`` holds (a new
    one when it holds none)."""
    definition, submission = loaded.definition, loaded.submission
    action = request.POST.get("action", "")
    back = action == "back"
    values = posted_values(request, webform, page_index)
    known = loaded.payload(webform)
    raw, checked = check_form_page(
        webform,
        page_index,
        values.get,
        enforce_required=not back,
        known=known,
        number_format=page_number_format(),
    )
    page = webform.pages[page_index]
    draft: dict[str, dict[str, str]] = {}
    if back:
        # Back never blocks: what passes is saved, what does not yet is kept as typed (the
        # row's draft) and shown again, without a message, when the person returns.
        failed = {key.split(".")[0] for key in checked.errors}
        draft = {f.key: form_strings(f, raw.get(f.key)) for f in page.fields if f.key in failed}
        draft |= {g.key: group_strings(g, raw.get(g.key)) for g in page.groups if g.key in failed}
        checked = Checked(values=checked.values)

    def again(
        errors: Mapping[str, Message],
        form_error: str = "",
        status: int = 400,
        *,
        at: tuple[int, Mapping[str, Any]] | None = None,
    ) -> Any:
        """The same page, as typed, with the messages; or ``at`` another page of the webform,
        with its values (an earlier page the person skipped)."""
        index, typed = at if at is not None else (page_index, raw)
        screen = Screen(
            workflow=workflow,
            definition=definition,
            webform=webform,
            page_index=index,
            fields=field_views(webform, index, typed, errors, use_defaults=False),
            groups=group_views(webform, index, typed, errors),
            submission=submission,
            embedded=embedded,
            form_error=form_error,
        )
        response = render_screen(request, screen)
        response.status_code = status
        return response

    if action.startswith(("add:", "remove:")):
        # A page without its script adds or removes an entry of a group by posting: the page
        # comes back with one entry more or less, as typed, and nothing is checked or saved.
        _, _, which = action.partition(":")
        key, _, index = which.partition(":")
        if isinstance(raw.get(key), list):
            if action.startswith("add:"):
                raw[key].append({})
            elif index.isdigit() and int(index) < len(raw[key]):
                raw[key].pop(int(index))
        return again({}, status=200)
    if not checked.ok:
        return again(checked.errors)
    if submission is None:
        # This post would start a submission: limited per address and webform, nothing stored.
        wait = new_submission_wait(request, workflow, webform)
        if wait is not None:
            refused = again({}, too_many_message(wait), status=429)
            refused["Retry-After"] = str(wait)
            return refused
    after = drop_hidden(webform, merged(known, checked))
    following = None if back else next_page(webform, after, page_index)
    complete = not back and following is None
    # The step the person goes to: the next shown page, the one before (Back), or this last one.
    if back:
        step = max((i for i in shown_pages(webform, after) if i < page_index), default=0)
    else:
        step = page_index if following is None else following
    try:
        saved = webform_save(
            SaveRequest(
                workflow=workflow,
                webform=webform,
                checked=checked,
                loaded=loaded,
                current_step=step,
                complete=complete,
                embedded=embedded,
                page_keys=tuple(item.key for item in page.items),
                draft=draft,
            )
        )
    except ValidationFailed as failure:
        return _refused(submission, webform, page_index, failure, again)
    except Conflict:
        assert submission is not None
        return end_page(request, submission, embedded=embedded)
    submission = saved.submission
    events = []
    if not back:
        events.append(
            embed_event(
                "forgeSubmitPage", submission, webform, pageId=page.id, pageIndex=page_index
            )
        )
    if saved.completed_webform:
        events.append(embed_event("forgeComplete", submission, webform))
    if saved.finished:
        if submission.is_complete:
            events.append(embed_event("weldComplete", submission, webform))
        return end_page(request, submission, embedded=embedded, events=events)
    if back:
        payloads = payloads_of(submission)
        target = previous_page(definition, payloads, webform, page_index)
    else:
        target = position_of(submission, definition) or (webform, page_index)
    screen = stored_screen(submission, definition, *target, embedded)
    screen.events = events
    return render_screen(request, screen)


def _refused(
    submission: Submission | None,
    webform: WebformDef,
    page_index: int,
    failure: ValidationFailed,
    again: Any,
) -> HttpResponse:
    """A save the service refused. Missing values of this page are shown on it; of an earlier
    page, that page is shown with them (the person skipped it); anything else (a document that
    could not be filled) is said above the form, which keeps what was typed."""
    by_key = failure.messages if isinstance(failure, PayloadInvalid) else {}
    page = webform.pages[page_index]
    here = {item.key for item in page.items}
    if by_key and {key.split(".")[0] for key in by_key} <= here:
        return again(by_key)
    if by_key and submission is not None:
        index = first_page_with_errors(webform, by_key)
        payload = payloads_of(submission).get(webform.slug, {})
        return again(by_key, at=(index, payload))
    return again(
        {},
        gettext(
            "Your answers could not be turned into documents, so nothing was saved yet: "
            "%(reason)s Check your answers and try again, or tell the organization that sent "
            "you here."
        )
        % {"reason": failure.message},
    )
