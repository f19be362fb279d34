"""The settings page and accounts' changes on it. config/urls.py mounts them under /settings/
with the other apps' sections' changes, in the one namespace ``settings``."""

from django.urls import path

from accounts.settings import views

urlpatterns = [
    path("", views.settings_index, name="index"),
    path("<slug:slug>/", views.settings_page, name="page"),
    path("<slug:slug>/keys/", views.key_create, name="key-create"),
    path("<slug:slug>/keys/<eid:eid>/revoke/", views.key_revoke, name="key-revoke"),
    path("<slug:slug>/payload-key/", views.payload_key_new, name="payload-key-create"),
    path("<slug:slug>/payload-key.pem", views.payload_key_download, name="payload-key-download"),
    path("<slug:slug>/embedding/", views.embed_origins_save, name="embed-origins"),
]
