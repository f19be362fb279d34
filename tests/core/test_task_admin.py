"""Task results name their arguments and have no organization: only superusers see them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.services import member_add


@pytest.mark.parametrize("role", ["owner", "member", "outsider"])
def test_staff_who_are_not_superusers_cannot_read_task_results(
    organization, other_organization, role
) -> None:
    user = User.objects.create_user(username=f"staff-{role}", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="django_tasks_database")
    )
    home = other_organization if role == "outsider" else organization
    member_add(organization=home, user=user, role="owner" if role != "member" else "member")
    client = Client()
    client.force_login(user)

    listing = client.get(reverse("admin:django_tasks_database_dbtaskresult_changelist"))
    index = client.get(reverse("admin:index"))

    assert listing.status_code == 403
    assert "Task Results" not in index.content.decode()


def test_superusers_read_task_results(db) -> None:
    client = Client()
    client.force_login(User.objects.create_superuser(username="root", password="pw-1234567890"))

    assert (
        client.get(reverse("admin:django_tasks_database_dbtaskresult_changelist")).status_code
        == 200
    )
