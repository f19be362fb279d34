"""Core's one model: emails kept instead of sent, for development (core.mail)."""

from __future__ import annotations

from django.db import models


class SentEmail(models.Model):
    """An email as the development backend (``EMAIL_URL=dbmail://``, the default with DEBUG on)
    kept it: read in the admin by superusers, with its links, instead of in the server's log.
    Nothing here is ever sent."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    from_email = models.CharField(max_length=500)
    to = models.TextField(help_text="Every recipient (to, cc, bcc), comma-separated.")
    subject = models.CharField(max_length=998)
    body = models.TextField()
    html_body = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "sent email (development)"
        verbose_name_plural = "sent emails (development)"

    def __str__(self) -> str:
        return f"{self.subject} → {self.to}"
