"""A submission's statuses: every one reachable from ``created`` by the table, nothing else in
the database, and moves the table forbids refused."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from core.errors import Conflict
from workflows.models import Submission
from workflows.submissions.lifecycle import SUBMISSION_MOVES, submission_move


def test_every_status_is_reachable() -> None:
    assert set(SUBMISSION_MOVES) == set(Submission.Status.values)
    reached, frontier = {"created"}, ["created"]
    while frontier:
        for target in SUBMISSION_MOVES[frontier.pop()]:
            if target not in reached:
                reached.add(target)
                frontier.append(target)
    assert reached == set(Submission.Status.values)


@pytest.mark.django_db
def test_the_database_and_the_table_refuse_other_moves(demo_template, organization) -> None:
    from workflows.demo import demo_workflow_create

    workflow = demo_workflow_create(organization=organization, template=demo_template)
    submission = Submission.objects.create(workflow=workflow, definition={})
    with pytest.raises(IntegrityError), transaction.atomic():
        Submission.objects.filter(pk=submission.pk).update(status="archived")

    submission_move(submission, "in-progress")
    submission_move(submission, "completed")
    with pytest.raises(Conflict):
        submission_move(submission, "declined")
    assert Submission.objects.get(pk=submission.pk).status == "completed"
