"""Embed tokens: what an integrator's user may do in an embedded builder, for how long."""

from __future__ import annotations

from django.db import models

from accounts.models import Organization
from core.fields import EidField


class EmbedToken(models.Model):
    """One URL handed out by generateEmbedURL. Only the secret's SHA-256 is stored; the row
    names the one object the URL opens (``object_eid``, of the kind ``embed_type`` says) and the
    actions it allows (``permissions``), and stops working at ``expires_at`` or once revoked."""

    class EmbedType(models.TextChoices):
        PDF_TEMPLATE = "edit-pdf-template", "PDF template editor"
        ETCH_PACKET = "edit-etch-packet", "Packet builder"
        WORKFLOW = "edit-workflow", "Workflow builder"

    eid = EidField()
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="embed_tokens"
    )
    embed_type = models.CharField(max_length=32, choices=EmbedType.choices)
    object_eid = models.CharField(max_length=64)
    permissions = models.JSONField(default=list)
    options = models.JSONField(default=dict, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    # A development key's token makes test packets (watermarked), as the key itself would.
    watermark = models.BooleanField(default=False)
    # The webform builder's draft its live preview shows (the admin keeps it in the session; an
    # iframe has none): in the database, which every web process reads.
    draft = models.JSONField(null=True, blank=True)
    # The packet builder's packet, once made: a link makes one packet (so that a link that
    # leaks cannot send signing emails again and again). "pending" while one is being made.
    made_eid = models.CharField(max_length=64, blank=True, default="")
    token_hash = models.CharField(max_length=64, unique=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["organization", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.embed_type} {self.object_eid} ({self.eid})"
