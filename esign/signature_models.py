"""Signers' own PAdES signatures (an extension, issue 51): each signer's ``signatureLevel`` and
the certificates their signatures were made with.

A signer without a ``SignerLevel`` row signs at the ``simple`` level, as before: their marks are
drawn into the pages and the service's seal covers them. ``advanced``: the service issues them a
short-lived certificate (esign.engine.signer_certificates) and adds their own PAdES signature to
each document before the seal (esign.sealing.signer_signatures). Each such signature is a
``SignerCertificate`` row, for the audit trail, /verify and the webhooks.
"""

from __future__ import annotations

from django.db import models


class SignatureLevel(models.TextChoices):
    SIMPLE = "simple"
    ADVANCED = "advanced"
    QUALIFIED = "qualified"


class SignerLevel(models.Model):
    """The signature level of a signer other than ``simple`` (who has no row)."""

    Level = SignatureLevel

    signer = models.OneToOneField(
        "esign.Signer", on_delete=models.CASCADE, related_name="signature_level"
    )
    level = models.CharField(max_length=16, choices=SignatureLevel.choices)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(level__in=["advanced", "qualified"]),
                name="signer_level_valid",
            )
        ]

    def __str__(self) -> str:
        return f"{self.signer_id}: {self.level}"


class SignerCertificate(models.Model):
    """One signer's PAdES signature on one document: the certificate it was made with."""

    signer = models.ForeignKey(
        "esign.Signer", on_delete=models.CASCADE, related_name="signature_certificates"
    )
    document = models.ForeignKey(
        "esign.PacketDocument", on_delete=models.CASCADE, related_name="signer_certificates"
    )
    level = models.CharField(max_length=16, choices=SignatureLevel.choices)
    field_name = models.CharField(max_length=128)
    subject = models.CharField(max_length=500)
    issuer = models.CharField(max_length=500)
    serial = models.CharField(max_length=80)  # hexadecimal
    certificate = models.BinaryField()  # DER
    signed_at = models.DateTimeField()

    class Meta:
        ordering = ["document", "signed_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["signer", "document"], name="unique_signer_certificate_per_document"
            )
        ]

    def __str__(self) -> str:
        return f"{self.subject} ({self.serial})"


class QualifiedProvider(models.Model):
    """An organization's remote signing provider for ``qualified`` signers: a service that
    follows the Cloud Signature Consortium API v2 (esign.engine.csc_client). Without a row, the
    settings' CSC_* provider (if any) serves every organization."""

    organization = models.OneToOneField(
        "accounts.Organization", on_delete=models.CASCADE, related_name="qualified_provider"
    )
    name = models.CharField(max_length=200, help_text="Shown to signers, e.g. the TSP's name.")
    base_url = models.URLField(
        max_length=500, help_text="The CSC API's base URL, ending in /csc/v2."
    )
    oauth_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="OAuth 2.0 server base URL (info's oauth2); blank: the API's.",
    )
    client_id = models.CharField(max_length=200)
    client_secret = models.CharField(max_length=500, blank=True)

    def __str__(self) -> str:
        return self.name
