"""Single sign-on's two routes, under the names mozilla-django-oidc reverses."""

from django.urls import path

from accounts.sso import SsoAuthenticateView, SsoCallbackView

urlpatterns = [
    path("authenticate/", SsoAuthenticateView.as_view(), name="oidc_authentication_init"),
    path("callback/", SsoCallbackView.as_view(), name="oidc_authentication_callback"),
]
