"""What a role given by single sign-on lets its person do in the admin, out of the box.

Django's permissions say what kind of object a staff user may view or change; the membership's
role says in which organization, and whether they manage it (accounts.staff). A person made by
single sign-on is staff; with no permission the admin would show them nothing at all. So each
person of single sign-on is in the group of their highest role ("Single sign-on: member",
"... admin", "... owner"), made on first use with the permissions of ``ROLE_PERMISSIONS`` (the
table in docs/configuration.md, "Single sign-on"). A superuser may change a group's permissions
in the admin afterwards: they are never set again. The group follows the role at every sign-in
(a member made admin in the admin is in the admin group from their next sign-in).

Permissions are named as "app_label.codename": accounts, at the bottom of the layers, imports
none of the apps whose objects they are.
"""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission
from django.db.models import Q

from accounts.models import Membership, User

GROUP_PREFIX = "Single sign-on: "

_VIEW = "view"
_EDIT = ("view", "add", "change")
_ALL = ("view", "add", "change", "delete")


def _perms(app: str, model: str, actions: tuple[str, ...] | str) -> tuple[str, ...]:
    return tuple(
        f"{app}.{action}_{model}"
        for action in ((actions,) if isinstance(actions, str) else actions)
    )


# A member edits templates and reads packets, bulk sends, workflows and submissions (of their
# organization: accounts.staff); an admin also sends and manages packets, bulk sends, workflows,
# webhooks, API keys and the members; an owner also deletes API keys, payload keys and
# submissions.
MEMBER = (
    *_perms("templates_app", "pdftemplate", _EDIT),
    *_perms("esign", "packet", _VIEW),
    *_perms("esign", "bulkbatch", _VIEW),
    *_perms("workflows", "workflow", _VIEW),
    *_perms("workflows", "webform", _VIEW),
    *_perms("workflows", "submission", _VIEW),
    *_perms("accounts", "organization", _VIEW),
)
ADMIN = (
    *MEMBER,
    "templates_app.delete_pdftemplate",
    *_perms("esign", "packet", ("add", "change", "delete")),
    *_perms("esign", "bulkbatch", ("add", "change")),
    *_perms("workflows", "workflow", ("add", "change", "delete")),
    *_perms("workflows", "webform", ("add", "change", "delete")),
    "workflows.change_submission",
    "accounts.change_organization",
    *_perms("accounts", "membership", _ALL),
    *_perms("accounts", "apikey", _EDIT),
    *_perms("accounts", "user", ("view", "change")),
    *_perms("webhooks", "webhookendpoint", ("view", "change")),
    *_perms("webhooks", "webhookevent", _VIEW),
    *_perms("webhooks", "webhookdelivery", ("view", "change")),
)
OWNER = (
    *ADMIN,
    "accounts.delete_apikey",
    *_perms("accounts", "payloadkeypair", _ALL),
    "workflows.delete_submission",
)
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    Membership.Role.MEMBER.value: MEMBER,
    Membership.Role.ADMIN.value: ADMIN,
    Membership.Role.OWNER.value: OWNER,
}
_RANK = [Membership.Role.OWNER.value, Membership.Role.ADMIN.value, Membership.Role.MEMBER.value]


def role_group_name(role: str) -> str:
    return f"{GROUP_PREFIX}{role}"


def role_group(role: str) -> Group:
    """The group of ``role``, made with the table's permissions if there is none yet."""
    group, created = Group.objects.get_or_create(name=role_group_name(role))
    if created:
        names = Q(pk__in=[])
        for name in ROLE_PERMISSIONS[role]:
            app_label, codename = name.split(".", 1)
            names |= Q(content_type__app_label=app_label, codename=codename)
        group.permissions.set(Permission.objects.filter(names))
    return group


def role_groups_follow(user: User) -> None:
    """Put a person of single sign-on in the group of their highest role (none without a
    membership), out of the other roles' groups."""
    roles = set(Membership.objects.filter(user=user).values_list("role", flat=True))
    highest = next((role for role in _RANK if role in roles), None)
    others = [role_group_name(role) for role in _RANK if role != highest]
    user.groups.remove(*Group.objects.filter(name__in=others))
    if highest is not None:
        user.groups.add(role_group(highest))
