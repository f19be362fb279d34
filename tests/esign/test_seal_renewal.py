"""Archive timestamp renewal: a sealed packet's B-LTA files get a new document timestamp before
their TSA's certificate expires, as new versions the downloads serve, so that they still pass
pyHanko's offline long-term validation once the original TSA certificate and CRL have expired
(which the file as sealed does not)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from core.blobs import blob_read
from esign.models import Packet, SealedFileVersion
from esign.sealing.renewal import sealed_file_renew
from esign.sealing.seal import packet_seal
from esign.sweeps import seal_renewals_sweep
from tests.esign.lifetimes_pki import LifetimesPki, long_term_validation_at, passed
from tests.esign.test_seal_packets import zip_url

pytestmark = pytest.mark.django_db

MARGIN_DAYS = 30
TSA_DAYS = 90  # the first TSA's certificate: renewal due at day 60
CRL_DAYS = 30


@pytest.fixture
def lifetimes(settings: Any, tmp_path: Path) -> Iterator[LifetimesPki]:
    """Seals made with a key of a PKI whose TSA certificate lives 90 days and CRLs 30."""
    pki = LifetimesPki(crl_lifetime=timedelta(days=CRL_DAYS), tsa_lifetime=timedelta(days=TSA_DAYS))
    pki.use_for_seals(settings, tmp_path / "seal")
    settings.SEAL_RENEWAL_MARGIN_DAYS = MARGIN_DAYS
    yield pki
    pki.close()


def move_clock(monkeypatch: pytest.MonkeyPatch, pki: LifetimesPki, days: int) -> datetime:
    """Move the clock the service reads, and the CA's and TSA's, ``days`` ahead."""
    later = timezone.now() + timedelta(days=days)
    monkeypatch.setattr(timezone, "now", lambda: later)
    pki.move(timedelta(days=days))
    return later


def renew_tasks() -> list[int]:
    rows = DBTaskResult.objects.filter(task_path="esign.tasks.sealed_file_renew_task")
    return [row.args_kwargs["kwargs"]["version_id"] for row in rows.order_by("enqueued_at")]


def zip_files(api_client: Client, created: dict[str, Any]) -> dict[str, bytes]:
    response = api_client.get(zip_url(created))
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    return {name: archive.read(name) for name in archive.namelist()}


def test_a_renewed_seal_passes_long_term_validation_after_its_tsa_certificate_and_crl_expired(
    complete, lifetimes: LifetimesPki, api_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    created, packet = complete()
    sealed_at = timezone.now()
    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-LTA)"
    document = packet.documents.get()
    first = {v.slot: v for v in SealedFileVersion.objects.filter(packet=packet)}
    assert sorted(first) == ["audit-trail", f"document-{document.pk}"]
    tsa_expiry = lifetimes.tsa_certificate.not_valid_after_utc
    for version in first.values():
        assert version.version == 1
        assert version.renewal_due_at == tsa_expiry - timedelta(days=MARGIN_DAYS)
    original = zip_files(api_client, created)
    assert seal_renewals_sweep(now=timezone.now()) == 0  # not due for 60 days
    assert renew_tasks() == []

    # Day 75: due. The TSA has rolled to a new key whose certificate lives ten years.
    later = move_clock(monkeypatch, lifetimes, 75)
    lifetimes.new_tsa(timedelta(days=3650))
    assert seal_renewals_sweep(now=later) == 2
    assert seal_renewals_sweep(now=later) == 0  # claimed: not enqueued twice
    outcomes = [sealed_file_renew(version_id=version_id) for version_id in renew_tasks()]
    assert outcomes == ["renewed (version 2)", "renewed (version 2)"]
    assert sealed_file_renew(version_id=first["audit-trail"].pk) == "nothing to renew"

    versions = SealedFileVersion.objects.filter(packet=packet)
    assert [(v.slot, v.version) for v in versions] == [
        ("audit-trail", 1),
        ("audit-trail", 2),
        (f"document-{document.pk}", 1),
        (f"document-{document.pk}", 2),
    ]
    renewed_due = lifetimes.tsa_certificate.not_valid_after_utc - timedelta(days=MARGIN_DAYS)
    assert [v.renewal_due_at for v in versions] == [None, renewed_due, None, renewed_due]
    renewals = packet.audit_events.filter(action="sealRenewed")
    assert sorted(e.detail["file"] for e in renewals) == ["agreement.pdf", "audit-trail.pdf"]
    assert {e.detail["version"] for e in renewals} == {2}

    renewed = zip_files(api_client, created)
    assert sorted(renewed) == ["agreement.pdf", "audit-trail.pdf"]
    for name, data in renewed.items():
        assert data != original[name]
        assert data.startswith(original[name]), name  # an incremental update: nothing lost
    for version in first.values():  # the first versions are kept
        assert blob_read(version.path, version.sha256) in original.values()
    packet.refresh_from_db()
    assert document.sealed_sha256 == packet.documents.get().sealed_sha256  # what /verify knows

    # Day 100: the first TSA's certificate (day 90) and the CRLs the seal carried (day 30) have
    # expired. Offline, the file as sealed is no longer provable; the renewed one is.
    at = sealed_at + timedelta(days=100)
    roots = [lifetimes.root]
    for name in renewed:
        assert passed(long_term_validation_at(renewed[name], roots, at)), name
        assert not passed(long_term_validation_at(original[name], roots, at)), name


def test_a_renewal_that_fails_is_recorded_and_tried_again_later(
    complete, lifetimes: LifetimesPki, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    _, packet = complete()
    packet_seal(packet_id=packet.pk)
    later = move_clock(monkeypatch, lifetimes, 75)
    lifetimes.tsa_available = False
    assert seal_renewals_sweep(now=later) == 2

    outcomes = {sealed_file_renew(version_id=version_id) for version_id in renew_tasks()}

    retry_at = later + timedelta(seconds=settings.SEAL_RENEWAL_RETRY_SECONDS)
    assert outcomes == {f"retrying at {retry_at.isoformat()}"}
    versions = SealedFileVersion.objects.filter(packet=packet)
    assert [v.version for v in versions] == [1, 1]  # nothing stored
    for version in versions:
        assert version.renewal_error.startswith("timestamp_unavailable: ")
        assert version.renewal_retry_at == retry_at
    assert seal_renewals_sweep(now=later) == 0  # waiting for the retry
    assert not packet.audit_events.filter(action="sealRenewed").exists()
    lifetimes.tsa_available = True
    assert seal_renewals_sweep(now=retry_at) == 2


def test_renew_seals_renews_every_timestamped_file_now_and_records_older_packets(
    complete, lifetimes: LifetimesPki
) -> None:
    _, packet = complete()
    packet_seal(packet_id=packet.pk)
    SealedFileVersion.objects.all().delete()  # a packet sealed before renewal existed
    out = io.StringIO()

    call_command("renew_seals", "--all", stdout=out)

    assert out.getvalue().endswith("Renewed 2 sealed file(s); 0 failed.\n")
    assert sorted(SealedFileVersion.objects.values_list("slot", "version")) == [
        ("audit-trail", 1),
        ("audit-trail", 2),
        (f"document-{packet.documents.get().pk}", 1),
        (f"document-{packet.documents.get().pk}", 2),
    ]


def test_a_b_b_seal_has_nothing_to_renew(complete) -> None:
    _, packet = complete()
    assert packet_seal(packet_id=packet.pk) == "sealed (PAdES-B-B)"

    versions = SealedFileVersion.objects.filter(packet=packet)
    assert [v.renewal_due_at for v in versions] == [None, None]
    far = timezone.now() + timedelta(days=3650)
    assert seal_renewals_sweep(now=far) == 0
    assert Packet.objects.get(pk=packet.pk).audit_events.filter(action="sealRenewed").count() == 0


def test_the_sweep_records_when_older_packets_are_due_once(
    complete, lifetimes: LifetimesPki, monkeypatch: pytest.MonkeyPatch
) -> None:
    import esign.sweeps

    _, packet = complete()
    packet_seal(packet_id=packet.pk)
    due = sorted(SealedFileVersion.objects.values_list("slot", "renewal_due_at"))
    SealedFileVersion.objects.all().delete()  # a packet sealed before renewal existed
    monkeypatch.setattr(esign.sweeps, "_versions_recorded", False)

    assert seal_renewals_sweep(now=timezone.now()) == 0  # recorded, not due yet

    assert sorted(SealedFileVersion.objects.values_list("slot", "renewal_due_at")) == due
    assert esign.sweeps._versions_recorded is True  # the query is not run again


def test_a_file_whose_timestamp_certificate_expired_is_not_renewed(
    complete, lifetimes: LifetimesPki, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, packet = complete()
    packet_seal(packet_id=packet.pk)
    expiry = lifetimes.tsa_certificate.not_valid_after_utc
    later = move_clock(monkeypatch, lifetimes, TSA_DAYS + 5)  # the sweep never ran meanwhile
    lifetimes.new_tsa(timedelta(days=3650))
    assert seal_renewals_sweep(now=later) == 2

    outcomes = [sealed_file_renew(version_id=version_id) for version_id in renew_tasks()]

    assert outcomes == ["failed", "failed"]
    versions = SealedFileVersion.objects.filter(packet=packet)
    assert [v.version for v in versions] == [1, 1]  # no timestamp that proves nothing
    for version in versions:
        assert version.renewal_error == (
            f"renewal_too_late: The last timestamp's certificate expired on "
            f"{expiry:%Y-%m-%d %H:%M} UTC: the file can no longer be renewed. "
            f"(renewal at {later.isoformat()})"
        )
        assert version.renewal_due_at is None  # not tried again
    assert seal_renewals_sweep(now=later + timedelta(days=1)) == 0


def test_a_renewal_whose_claim_ran_out_is_enqueued_again(
    complete, lifetimes: LifetimesPki, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    _, packet = complete()
    packet_seal(packet_id=packet.pk)
    later = move_clock(monkeypatch, lifetimes, 75)
    assert seal_renewals_sweep(now=later) == 2
    ran_out = later + timedelta(seconds=settings.SEAL_LEASE_SECONDS + 1)

    assert seal_renewals_sweep(now=ran_out - timedelta(seconds=2)) == 0  # still claimed
    assert seal_renewals_sweep(now=ran_out) == 2  # its worker died: enqueued again

    assert len(renew_tasks()) == 4
    assert set(SealedFileVersion.objects.values_list("renewal_status", flat=True)) == {"pending"}
