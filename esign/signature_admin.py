"""The admin of an organization's qualified signature provider (issue 51: esign.signature_models.
QualifiedProvider), scoped like every admin of an organization's rows (accounts.staff_admin):
its owners and admins set it; the client secret is typed, never shown again."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from accounts.staff_admin import OrganizationOwnedAdmin
from esign.signature_models import QualifiedProvider


class QualifiedProviderForm(forms.ModelForm):
    base_url = forms.URLField(
        max_length=500,
        assume_scheme="https",
        help_text="The CSC API's base URL, ending in /csc/v2.",
    )
    oauth_url = forms.URLField(
        max_length=500,
        required=False,
        assume_scheme="https",
        help_text="OAuth 2.0 server base URL (info's oauth2); blank: the API's.",
    )
    client_secret = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="This service's OAuth client secret at the provider. Blank keeps the one set.",
    )

    class Meta:
        model = QualifiedProvider
        fields = ["organization", "name", "base_url", "oauth_url", "client_id", "client_secret"]

    def clean_client_secret(self) -> str:
        typed = self.cleaned_data.get("client_secret") or ""
        if not typed and self.instance.pk is not None:
            return self.instance.client_secret  # not shown, so not typed again: kept
        return typed


@admin.register(QualifiedProvider)
class QualifiedProviderAdmin(OrganizationOwnedAdmin):
    form = QualifiedProviderForm
    list_display = ["organization", "name", "base_url", "client_id"]
    list_select_related = ["organization"]
    search_fields = ["organization__slug", "name", "base_url"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["organization"] if obj is not None else []
