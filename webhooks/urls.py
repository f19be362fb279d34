"""The organization's API settings page, mounted at /settings/."""

from django.urls import path

from webhooks import views

app_name = "webhooks"

urlpatterns = [
    path("", views.settings_index, name="index"),
    path("<slug:slug>/", views.settings_page, name="settings"),
    path("<slug:slug>/keys/", views.key_create, name="key-create"),
    path("<slug:slug>/keys/<str:eid>/revoke/", views.key_revoke, name="key-revoke"),
    path("<slug:slug>/webhook/url/", views.webhook_url_save, name="webhook-url"),
    path("<slug:slug>/webhook/token/", views.webhook_token_rotate, name="webhook-token"),
    path("<slug:slug>/webhook/secret/", views.webhook_secret_rotate, name="webhook-secret"),
    path("<slug:slug>/webhook/test/", views.webhook_send_test, name="webhook-test"),
    path("<slug:slug>/webhook/public-key/", views.webhook_public_key_save, name="public-key"),
    path("<slug:slug>/payload-key/", views.payload_key_new, name="payload-key-create"),
    path("<slug:slug>/payload-key.pem", views.payload_key_download, name="payload-key-download"),
    path("<slug:slug>/embedding/", views.embed_origins_save, name="embed-origins"),
    path(
        "<slug:slug>/deliveries/<str:eid>/resend/",
        views.delivery_resend_view,
        name="delivery-resend",
    ),
]
