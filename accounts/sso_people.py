"""Who a single sign-on signs in (accounts.sso): the user of the provider's issuer and subject
(``SsoIdentity``), else a new person, else (linking, accounts.sso_link) the signed-in user who
asked for it. Never a user found by their email: an address is a claim the provider makes, and
whoever controls it at one organization's provider must not become an account of another.

A refusal is an ``SsoRefused`` carrying what the failure page says (``?sso=<reason>``); nothing
is written before every check passed."""

from __future__ import annotations

import logging
import re
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation, ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from accounts.models import Membership, Organization, SsoIdentity, User
from accounts.services import member_add
from accounts.sso_roles import role_groups_follow

logger = logging.getLogger(__name__)

ROLE_ORDER = [Membership.Role.OWNER, Membership.Role.ADMIN, Membership.Role.MEMBER]
# The columns' lengths: an address or identity that does not fit is refused, not cut.
EMAIL_MAX_LENGTH = User._meta.get_field("email").max_length or 254
IDENTITY_MAX_LENGTH = SsoIdentity._meta.get_field("subject").max_length or 255

# Why a sign-in was refused, as the failure page's ?sso= tells it.
FAILED = "failed"  # anything: no reason worth telling (or safe to tell)
EXISTS = "exists"  # an account has this address: its owner signs in and links it
LINK = "link"  # a link the signed-in user asked for was not made


class SsoRefused(SuspiciousOperation):
    """A sign-in refused, with the reason the failure page shows."""

    def __init__(self, message: str, reason: str = FAILED) -> None:
        super().__init__(message)
        self.reason = reason


def identity_of(id_token: dict[str, Any]) -> tuple[str, str]:
    """The verified ID token's issuer and subject, which name the person at the provider."""
    issuer, subject = id_token.get("iss"), id_token.get("sub")
    for value in (issuer, subject):
        if not isinstance(value, str) or not value or len(value) > IDENTITY_MAX_LENGTH:
            raise SsoRefused("The ID token's iss or sub is empty, not text or too long.")
    return str(issuer), str(subject)


def email_acceptable(claims: dict[str, Any]) -> bool:
    """A verified email, valid as a whole address (``x@evil.test@acme.test`` is not one: the
    domain rule must not read only what follows the last @), that fits the column, of
    ``SSO_EMAIL_DOMAINS`` when set."""
    email = claims.get("email")
    if not isinstance(email, str) or not email or len(email) > EMAIL_MAX_LENGTH:
        return False
    # Some providers (Cognito) send the claim as a string.
    if claims.get("email_verified") in (False, "false"):
        return False
    try:
        validate_email(email)
    except ValidationError:
        return False
    domains = [d.lower() for d in settings.SSO_EMAIL_DOMAINS]
    return not domains or domain_of(email) in domains


def person_for(*, issuer: str, subject: str, claims: dict[str, Any], linking: User | None) -> User:
    """The user this sign-in is for (claims: the user info, of this subject, its email checked
    by ``email_acceptable``)."""
    identity = _identity(issuer, subject)
    if linking is not None:
        return _link(issuer, subject, claims, linking, identity)
    if identity is not None:
        return _returning(identity.user)
    return _create(issuer, subject, claims)


def _identity(issuer: str, subject: str) -> SsoIdentity | None:
    return SsoIdentity.objects.select_related("user").filter(issuer=issuer, subject=subject).first()


def _returning(user: User) -> User:
    """A person signing in again: no membership is added (someone an admin removed from their
    organization stays out; a changed address or domain rule moves no one)."""
    if user.is_superuser:
        # Whoever controls the identity at the provider must not become a superuser here.
        raise SsoRefused("A superuser signs in with their password only.")
    role_groups_follow(user)  # the permissions of their role now (accounts.sso_roles)
    return user


def _create(issuer: str, subject: str, claims: dict[str, Any]) -> User:
    email = str(claims["email"])
    organization = organization_for(claims)
    try:
        with transaction.atomic():
            # Two first sign-ins of one address (one domain, so one organization) queue here:
            # the second sees the first's identity or account.
            list(Organization.objects.select_for_update().filter(pk=organization.pk))
            identity = _identity(issuer, subject)
            if identity is not None:
                return _returning(identity.user)
            existing = User.objects.filter(email__iexact=email)
            if existing.filter(is_superuser=True).exists():
                raise SsoRefused("A superuser signs in with their password only.")
            if existing.exists():
                raise SsoRefused("An account has this email already.", reason=EXISTS)
            user = User(
                username=_username_for(email),
                email=email,
                first_name=str(claims.get("given_name") or "")[:150],
                last_name=str(claims.get("family_name") or "")[:150],
                is_staff=True,
            )
            user.set_unusable_password()
            user.save()
            SsoIdentity.objects.create(issuer=issuer, subject=subject, user=user)
            if settings.SSO_STAFF_GROUP:
                user.groups.add(Group.objects.get_or_create(name=settings.SSO_STAFF_GROUP)[0])
            member_add(organization=organization, user=user, role=_role_for(claims))
            role_groups_follow(user)
    except IntegrityError:
        # The same identity made at this moment by a sign-in that did not wait (SQLite).
        raise SsoRefused("The identity was created at the same time.") from None
    logger.info("Single sign-on created user %s in %s", user.username, organization.slug)
    return user


def _link(
    issuer: str,
    subject: str,
    claims: dict[str, Any],
    user: User,
    identity: SsoIdentity | None,
) -> User:
    """The signed-in user's account linked to this identity, as they confirmed: only with the
    account's own address, only for an account wholly in the organization the provider's
    addresses join (never across organizations), and no membership is added."""
    if identity is not None:
        if identity.user_id == user.pk:
            return _returning(user)
        raise SsoRefused("This identity signs in to another account.", reason=LINK)
    if user.is_superuser:
        raise SsoRefused("A superuser signs in with their password only.", reason=LINK)
    if user.email.lower() != str(claims["email"]).lower():
        raise SsoRefused("The provider's address is not the account's.", reason=LINK)
    organization = organization_for(claims, reason=LINK)
    organizations = set(Membership.objects.filter(user=user).values_list("organization_id"))
    if organizations != {(organization.pk,)}:
        raise SsoRefused("The account is not (only) in the provider's organization.", reason=LINK)
    if SsoIdentity.objects.filter(user=user, issuer=issuer).exists():
        raise SsoRefused("The account is linked to another identity already.", reason=LINK)
    try:
        with transaction.atomic():
            SsoIdentity.objects.create(issuer=issuer, subject=subject, user=user)
    except IntegrityError:
        raise SsoRefused("The identity was linked at the same time.", reason=LINK) from None
    logger.info("Single sign-on linked user %s", user.username)
    return user


def domain_of(email: str) -> str:
    return email.rpartition("@")[2].lower()


def organization_for(claims: dict[str, Any], reason: str = FAILED) -> Organization:
    by_domain = {k.lower(): v for k, v in settings.SSO_ORGANIZATIONS_BY_DOMAIN.items()}
    slug = by_domain.get(domain_of(str(claims["email"])), settings.SSO_ORGANIZATION)
    organization = Organization.objects.filter(slug=slug).first() if slug else None
    if organization is None:
        raise SsoRefused("No organization for this person (SSO_ORGANIZATION...).", reason)
    return organization


def _role_for(claims: dict[str, Any]) -> str:
    listed = claims.get(settings.SSO_ROLE_CLAIM) if settings.SSO_ROLE_CLAIM else None
    values = {
        str(v).lower() for v in (listed if isinstance(listed, list) else [listed] if listed else [])
    }
    for role in ROLE_ORDER:
        if role.value in values:
            return role.value
    return settings.SSO_ROLE


def _username_for(email: str) -> str:
    base = re.sub(r"[^\w.@+-]", "", email)[:140] or "user"
    name, number = base, 1
    while User.objects.filter(username=name).exists():
        number += 1
        name = f"{base}-{number}"
    return name
