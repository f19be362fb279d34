"""Single sign-on's routes: the two mozilla-django-oidc reverses, and linking an account."""

from django.urls import path

from accounts.sso import SsoAuthenticateView, SsoCallbackView
from accounts.sso_link import sso_link

urlpatterns = [
    path("authenticate/", SsoAuthenticateView.as_view(), name="oidc_authentication_init"),
    path("callback/", SsoCallbackView.as_view(), name="oidc_authentication_callback"),
    path("link/", sso_link, name="oidc_link"),
]
