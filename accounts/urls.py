"""Logging in and out for members (the settings page); staff also use the admin's own login."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts.member_login import GuardedMemberAuthenticationForm

app_name = "accounts"

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="accounts/login.html",
            authentication_form=GuardedMemberAuthenticationForm,
            redirect_authenticated_user=True,
            # Members land on their organization's settings when no ?next= is given.
            next_page="/settings/",
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(next_page="/accounts/login/"), name="logout"),
]
