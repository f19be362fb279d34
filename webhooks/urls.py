"""The webhook sections' changes on the settings page. config/urls.py mounts them under
/settings/ with accounts' page (accounts.settings.urls), in the one namespace ``settings``."""

from django.urls import include, path

from webhooks import views

# The webhook section's changes, under <settings page's slug>/webhook/.
webhook_urlpatterns = [
    path("url/", views.webhook_url_save, name="webhook-url"),
    path("token/", views.webhook_token_rotate, name="webhook-token"),
    path("secret/", views.webhook_secret_rotate, name="webhook-secret"),
    path("test/", views.webhook_send_test, name="webhook-test"),
    path("public-key/", views.webhook_public_key_save, name="public-key"),
]

urlpatterns = [
    path("<slug:slug>/webhook/", include(webhook_urlpatterns)),
    path(
        "<slug:slug>/deliveries/<eid:eid>/resend/",
        views.delivery_resend_view,
        name="delivery-resend",
    ),
]
