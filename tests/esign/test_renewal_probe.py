"""Probes of seal renewal (issue 46, item 12), on SQLite and PostgreSQL: ``manage.py renew_seals``,
the renewal itself (``esign.sealing.renewal.sealed_file_renew``, the task the sweep enqueues) and
the packet admin's seal actions and versions.

Hostile or foreign arguments are refused with a message and change nothing; a renewal of what
is not due, not the newest, or not there renews nothing; two renewals of one file racing store
one new version and leave no file behind that no row names; staff of another organization, and a
member of the packet's own, seal nothing again, whatever ids their forged posts carry.
"""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.contrib.messages import get_messages
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

import esign.sealing.renewal as renewal
from accounts.models import Organization
from core.admin_actions import REFUSED
from esign.models import AuditEvent, Packet, SealedFileVersion
from esign.sealing.renewal import sealed_file_renew
from esign.sealing.seal import packet_seal
from tests.esign.conftest import esign_staff_client
from tests.esign.lifetimes_pki import LifetimesPki
from tests.esign.test_seal_renewal import lifetimes, move_clock  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


def versions() -> list[tuple[int, str, int, Any, str]]:
    """Every sealed file version as the database has it."""
    return list(
        SealedFileVersion.objects.order_by("pk").values_list(
            "packet_id", "slot", "version", "renewal_due_at", "renewal_status"
        )
    )


def sealed(complete: Any) -> Packet:
    _, packet = complete()
    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-LTA)"
    return packet


def renew_seals(*arguments: str) -> str:
    out = io.StringIO()
    call_command("renew_seals", *arguments, stdout=out)
    return out.getvalue()


# --- manage.py renew_seals -----------------------------------------------------------------


@pytest.mark.parametrize(
    "eid",
    ["\x00", "abc\x00def", "\ud800", "e" * 5000, "' OR 1=1 --", "%", "*"],
    ids=["NUL", "NUL inside", "a lone surrogate", "5,000 characters", "SQL", "a wildcard", "star"],
)
def test_renew_seals_refuses_what_is_no_packet_eid_and_changes_nothing(
    complete: Any,
    lifetimes: LifetimesPki,  # noqa: F811 - the fixture imported above
    eid: str,
) -> None:
    sealed(complete)
    before = versions()

    with pytest.raises(CommandError) as refused:
        renew_seals("--all", "--packet", eid)

    assert str(refused.value) == f"--packet: {eid!r} is not a packet's eid."
    assert versions() == before


def test_renew_seals_of_a_packet_not_sealed_renews_nothing(
    create_packet: Any,
    complete: Any,
    lifetimes: LifetimesPki,  # noqa: F811 - the fixture imported above
) -> None:
    open_packet = create_packet()
    sealed(complete)
    before = versions()

    out = renew_seals("--all", "--packet", open_packet["eid"], "--packet", "A" * 20)

    assert out == "Renewed 0 sealed file(s); 0 failed.\n"
    assert versions() == before


def test_renew_seals_names_only_the_packets_it_is_given(
    complete: Any,
    lifetimes: LifetimesPki,  # noqa: F811 - the fixture imported above
) -> None:
    first, second = sealed(complete), sealed(complete)

    out = renew_seals("--all", "--packet", second.eid)

    assert out.endswith("Renewed 2 sealed file(s); 0 failed.\n")
    renewed = {(packet_id, version) for packet_id, _, version, _, _ in versions()}
    assert renewed == {(first.pk, 1), (second.pk, 1), (second.pk, 2)}


# --- the renewal itself --------------------------------------------------------------------


def test_a_renewal_of_what_is_not_there_not_due_or_not_the_newest_renews_nothing(
    complete: Any,
    lifetimes: LifetimesPki,  # noqa: F811 - the fixture imported above
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    packet = sealed(complete)
    first = SealedFileVersion.objects.filter(packet=packet).first()
    assert first is not None
    before = versions()

    assert sealed_file_renew(version_id=0) == "gone"
    assert sealed_file_renew(version_id=2**62) == "gone"
    assert sealed_file_renew(version_id=first.pk).startswith("not due until ")
    assert versions() == before

    move_clock(monkeypatch, lifetimes, 75)
    assert sealed_file_renew(version_id=first.pk) == "renewed (version 2)"
    assert sealed_file_renew(version_id=first.pk) == "nothing to renew"  # again: no version 3
    assert sealed_file_renew(version_id=first.pk, force=True) == "nothing to renew"
    assert [v for _, slot, v, _, _ in versions() if slot == first.slot] == [1, 2]
    assert AuditEvent.objects.filter(packet=packet, action="sealRenewed").count() == 1


def test_two_renewals_racing_store_one_version_and_no_file_nobody_names(
    complete: Any,
    lifetimes: LifetimesPki,  # noqa: F811 - the fixture imported above
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The second renewal of a file (another worker, ``renew_seals`` beside the sweep's task)
    finishes while the first is still talking to the TSA: the first finds the file renewed, stores
    no version, and removes the file it had written (a renewed PDF differs by its timestamp)."""
    packet = sealed(complete)
    first = SealedFileVersion.objects.filter(packet=packet).first()
    assert first is not None
    move_clock(monkeypatch, lifetimes, 75)
    saved: list[str] = []
    original_save, original_renew = renewal.blob_save, renewal.renew_seal_pdf

    def recording_save(**arguments: Any) -> tuple[str, str]:
        path, sha = original_save(**arguments)
        saved.append(path)
        return path, sha

    def renew_with_a_rival(pdf: bytes, **arguments: Any) -> bytes:
        monkeypatch.setattr(renewal, "renew_seal_pdf", original_renew)
        assert sealed_file_renew(version_id=first.pk) == "renewed (version 2)"  # the rival
        return original_renew(pdf, **arguments)

    monkeypatch.setattr(renewal, "blob_save", recording_save)
    monkeypatch.setattr(renewal, "renew_seal_pdf", renew_with_a_rival)

    with django_capture_on_commit_callbacks(execute=True):
        assert sealed_file_renew(version_id=first.pk) == "renewed by another attempt"

    assert [v for _, slot, v, _, _ in versions() if slot == first.slot] == [1, 2]
    named = set(SealedFileVersion.objects.values_list("path", flat=True))
    assert len(saved) == 2
    assert len(set(saved)) == 2
    assert [default_storage.exists(path) for path in saved] == [True, False]
    assert {saved[0]} <= named
    assert saved[1] not in named
    assert AuditEvent.objects.filter(packet=packet, action="sealRenewed").count() == 1


# --- the admin ------------------------------------------------------------------------------


def staff(organization: Organization, role: str, name: str) -> Client:
    return esign_staff_client(organization, role=role, username=name)


def seal_tasks() -> int:
    return DBTaskResult.objects.filter(task_path="esign.tasks.packet_seal_task").count()


def seal_again(client: Client, ids: list[str]) -> Any:
    """The list's "Seal again" posted with ``ids`` (percent-encoded as they are: a lone
    surrogate's bytes reach the server as a browser would send them)."""
    body = urlencode(
        [("action", "seal_again"), ("index", "0")] + [("_selected_action", i) for i in ids],
        quote_via=lambda text, *_: quote(text.encode("utf-8", "surrogatepass"), safe=""),
    )
    return client.post(
        reverse("admin:esign_packet_changelist"),
        data=body,
        content_type="application/x-www-form-urlencoded",
    )


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.fixture
def unsealed(complete: Any) -> Packet:
    """A completed packet whose sealing failed: what "Seal again" is for."""
    _, packet = complete()
    Packet.objects.filter(pk=packet.pk).update(seal_status=Packet.SealStatus.FAILED, seal_error="x")
    DBTaskResult.objects.all().delete()
    return packet


def test_staff_of_another_organization_seal_nothing_again_with_forged_ids(
    unsealed: Packet, other_organization: Organization
) -> None:
    outsider = staff(other_organization, "owner", "globex-owner")

    response = seal_again(outsider, [str(unsealed.pk)])

    assert response.status_code == 302  # the list again, with "no items selected"
    assert seal_tasks() == 0
    unsealed.refresh_from_db()
    assert unsealed.seal_status == Packet.SealStatus.FAILED


def test_a_member_of_the_packets_organization_seals_nothing_again(
    unsealed: Packet, organization: Organization
) -> None:
    member = staff(organization, "member", "acme-member")

    response = seal_again(member, [str(unsealed.pk)])

    assert response.status_code in (200, 302)
    assert seal_tasks() == 0
    unsealed.refresh_from_db()
    assert unsealed.seal_status == Packet.SealStatus.FAILED


@pytest.mark.parametrize(
    "junk", ["abc", "\x00", "9" * 30, str(2**63), "0", "-1", "1.5", "\ud800", ""]
)
def test_a_hostile_id_beside_a_real_one_refuses_the_action_whole(
    unsealed: Packet, organization: Organization, junk: str
) -> None:
    """Django hands the posted ids to the query as they came (a 500 on every admin's list);
    a selection that names a row that cannot exist is refused whole, with a message."""
    admin = staff(organization, "admin", "acme-admin")

    response = seal_again(admin, [str(unsealed.pk), junk])

    assert response.status_code == 302
    assert messages_of(response) == [REFUSED]
    assert seal_tasks() == 0
    unsealed.refresh_from_db()
    assert unsealed.seal_status == Packet.SealStatus.FAILED
    assert seal_again(admin, [str(unsealed.pk)]).status_code == 302  # the real one alone: done
    assert seal_tasks() == 1


def test_the_sealed_versions_cannot_be_changed_through_a_forged_change_form(
    complete: Any,
    lifetimes: LifetimesPki,  # noqa: F811 - the fixture imported above
    organization: Organization,
) -> None:
    packet = sealed(complete)
    admin = staff(organization, "owner", "acme-owner")
    first = SealedFileVersion.objects.filter(packet=packet).first()
    assert first is not None
    before = versions()

    response = admin.post(
        reverse("admin:esign_packet_change", args=[packet.pk]),
        {
            "sealed_versions-TOTAL_FORMS": "1",
            "sealed_versions-INITIAL_FORMS": "1",
            "sealed_versions-0-id": str(first.pk),
            "sealed_versions-0-renewal_due_at": "2000-01-01 00:00:00",
            "sealed_versions-0-DELETE": "on",
        },
    )

    assert response.status_code == 403
    assert versions() == before
