"""Members sign in at /accounts/login/ (not staff), with the admin's lockout."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Organization, User
from accounts.services import member_add

PASSWORD = "member-Pass-123456789"


@pytest.fixture
def member(organization: Organization, settings) -> User:
    settings.ADMIN_LOGIN_FAILURE_LIMIT = 3
    user = User.objects.create_user(username="mia", password=PASSWORD)
    member_add(organization=organization, user=user, role="member")
    return user


def sign_in(password: str, username: str = "mia") -> tuple[Client, str]:
    client = Client(REMOTE_ADDR="203.0.113.9")
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return client, response.content.decode()


def test_a_member_who_is_not_staff_signs_in_and_reaches_the_settings(member: User) -> None:
    client, _ = sign_in(PASSWORD)

    assert client.get("/settings/acme/").status_code == 200


def test_a_wrong_password_says_so_without_naming_staff(member: User) -> None:
    client, html = sign_in("wrong")

    assert "Please enter a correct username and password." in html
    assert "staff" not in html
    assert client.get("/settings/acme/").status_code == 302


def test_after_the_failure_limit_the_right_password_is_refused(member: User) -> None:
    for _ in range(3):
        sign_in("wrong")

    client, html = sign_in(PASSWORD)

    assert "Too many failed sign-ins" in html
    assert client.get("/settings/acme/").status_code == 302


def test_logging_out_ends_the_session(member: User) -> None:
    client, _ = sign_in(PASSWORD)

    client.post("/accounts/logout/")

    assert client.get("/settings/acme/").status_code == 302
