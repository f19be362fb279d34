"""Members' sign-in (the settings page): the admin's lockout (accounts.login_guard), for people
who are not staff. Failures count in the same counters as the admin's, so switching forms does
not buy an attacker more tries."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.forms import AuthenticationForm

from accounts.login_guard import GuardedAdminAuthenticationForm


class GuardedMemberAuthenticationForm(GuardedAdminAuthenticationForm):
    error_messages = AuthenticationForm.error_messages

    def confirm_login_allowed(self, user: Any) -> None:
        # Any active member may sign in here; the admin's own form still asks for staff.
        AuthenticationForm.confirm_login_allowed(self, user)
