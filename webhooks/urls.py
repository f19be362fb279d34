"""The webhook sections' changes on the settings page. config/urls.py mounts them under
/settings/ with accounts' page (accounts.settings.urls), in the one namespace ``settings``."""

from django.urls import path

from webhooks import views

urlpatterns = [
    path("<slug:slug>/webhook/url/", views.webhook_url_save, name="webhook-url"),
    path("<slug:slug>/webhook/token/", views.webhook_token_rotate, name="webhook-token"),
    path("<slug:slug>/webhook/secret/", views.webhook_secret_rotate, name="webhook-secret"),
    path("<slug:slug>/webhook/test/", views.webhook_send_test, name="webhook-test"),
    path("<slug:slug>/webhook/public-key/", views.webhook_public_key_save, name="public-key"),
    path(
        "<slug:slug>/deliveries/<eid:eid>/resend/",
        views.delivery_resend_view,
        name="delivery-resend",
    ),
]
