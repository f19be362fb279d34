"""The secrets that let a signer in: a signing link's token and a one-time code sent before
the documents are shown (esign.links). Registered through esign.models, which imports them."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from core.fields import EncryptedTextField


class SignerToken(models.Model):
    """A signing link's secret. Only its SHA-256 is stored; it expires and can be revoked.

    An embedded signer's token keeps the integrator's ``client_user_id`` for the record (it is
    not checked when the link is opened).
    """

    signer = models.ForeignKey("esign.Signer", on_delete=models.CASCADE, related_name="tokens")
    token_hash = models.CharField(max_length=64, unique=True)
    # The token itself, encrypted, for the links the service shows again while they last (a
    # workflow's done page); blank for links handed out once (the API's, emailed ones).
    secret = EncryptedTextField(blank=True)
    client_user_id = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    # When the signer entered a right one-time code with this link (esign.links.codes).
    verified_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"link of {self.signer} until {self.expires_at:%Y-%m-%d %H:%M}"


class SignerCode(models.Model):
    """A one-time code sent to a signer before they may see the documents (esign.links.codes):
    only its hash is kept; it lasts a few minutes, is used once, and is locked after too many
    wrong tries."""

    signer = models.ForeignKey("esign.Signer", on_delete=models.CASCADE, related_name="codes")
    code_hash = models.CharField(max_length=64)
    method = models.CharField(max_length=16)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    tries = models.PositiveSmallIntegerField(default=0)
    used_at = models.DateTimeField(null=True, blank=True)
    locked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["signer", "-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.method} code of signer {self.signer_id}"
