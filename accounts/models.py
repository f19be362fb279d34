"""Organizations, their members and their API keys."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models

from core.fields import EidField


class User(AbstractUser):
    eid = EidField()

    @property
    def display_name(self) -> str:
        return self.get_full_name() or self.username


class Organization(models.Model):
    eid = EidField()
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    embed_origins = models.JSONField(
        default=list,
        blank=True,
        help_text="Origins (https://app.example.com) allowed to embed signing and workflow pages "
        "in an iframe; read with accounts.embedding.embed_origins().",
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="organizations"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.slug})"


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        ADMIN = "admin", "Admin"
        MEMBER = "member", "Member"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "organization"], name="unique_membership")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.organization} ({self.role})"


class ApiKey(models.Model):
    """An API key. Only its SHA-256 is stored; the key itself is shown once, at creation.

    Keys are 40 random base62 characters (about 238 bits), so a fast hash is enough: there is
    nothing to brute-force that a slow password hash would protect.
    """

    class Kind(models.TextChoices):
        DEVELOPMENT = "development", "Development"
        PRODUCTION = "production", "Production"

    eid = EidField()
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="api_keys"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=16, help_text="The first characters, to recognise a key.")
    key_hash = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        help_text="The member the key acts for; currentUser answers with this user.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API key"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.kind}, {self.organization.slug})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class ApiKeyUsage(models.Model):
    """How many API requests one key made on one day (UTC); one upsert per request."""

    api_key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="usage")
    day = models.DateField()
    count = models.PositiveBigIntegerField(default=0)

    class Meta:
        verbose_name = "API key usage"
        constraints = [
            models.UniqueConstraint(fields=["api_key", "day"], name="unique_api_key_usage_day")
        ]

    def __str__(self) -> str:
        return f"{self.api_key_id} on {self.day}: {self.count}"


class PayloadKeyPair(models.Model):
    """The organization's inbound RSA key pair for encrypted ``data`` in fill and generate.

    The public key is shown to the integrator; the private key is stored encrypted (PKCS#8 with a
    key derived from settings.PAYLOAD_KEY_SECRET) and only opened to decrypt a request.
    """

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="payload_key"
    )
    public_pem = models.TextField()
    private_pem_encrypted = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "inbound payload key pair"

    def __str__(self) -> str:
        return f"payload key of {self.organization.slug}"


class SsoIdentity(models.Model):
    """A person at the single sign-on provider (accounts.sso): the ID token's issuer and subject,
    which the provider never reassigns, unlike an email address. Sign-in finds the user by this
    pair only; an address never links an existing account."""

    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sso_identities"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "single sign-on identity"
        verbose_name_plural = "single sign-on identities"
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="unique_sso_identity")
        ]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer} ({self.user_id})"
