"""The packet's admin page shows each sealed file's versions (esign.sealing.renewal) and why a
renewal failed, so an operator sees a seal that is not being kept valid."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import User
from esign.models import SealedFileVersion
from esign.sealing.seal import packet_seal

pytestmark = pytest.mark.django_db


def test_the_packet_page_shows_sealed_file_versions_and_a_renewal_error(complete: Any) -> None:
    _, packet = complete()
    packet_seal(packet_id=packet.pk)
    retry_at = timezone.now() + timedelta(hours=1)
    SealedFileVersion.objects.filter(packet=packet, slot="audit-trail").update(
        renewal_error="timestamp_unavailable: No timestamp authority answered.",
        renewal_retry_at=retry_at,
    )
    trail = SealedFileVersion.objects.get(packet=packet, slot="audit-trail")
    browser = Client()
    browser.force_login(User.objects.create_superuser("root", "root@example.com", "pw-tests"))

    page = browser.get(f"/admin/esign/packet/{packet.pk}/change/").content.decode()

    assert "Sealed file versions" in page
    # The document by its title, not its slot (document-<id>).
    assert f"{packet.documents.get().title} (document)" in page
    assert f"document-{packet.documents.get().pk}" not in page
    assert "timestamp_unavailable: No timestamp authority answered." in page
    assert f'<span title="{trail.sha256}">{trail.sha256[:16]}…</span>' in page


def test_sealings_counters_show_when_they_mean_something(complete: Any) -> None:
    """A sealed packet shows no "0 failed attempts" nor an empty retry time; one whose sealing
    is being retried shows how many attempts failed, why, and when it is tried again."""
    _, packet = complete()
    packet_seal(packet_id=packet.pk)
    browser = Client()
    browser.force_login(User.objects.create_superuser("root", "root@example.com", "pw-tests"))
    url = f"/admin/esign/packet/{packet.pk}/change/"

    sealed = browser.get(url).content.decode()
    assert "Failed sealing attempts" not in sealed
    assert "Seal attempts" not in sealed
    assert "Seal retry at" not in sealed
    assert "Seal error" not in sealed
    assert "Merged sha256" not in sealed

    type(packet).objects.filter(pk=packet.pk).update(
        seal_status="retrying",
        seal_attempts=2,
        seal_error="timestamp_unavailable: No timestamp authority answered.",
        seal_retry_at=timezone.now() + timedelta(minutes=5),
        sealed_at=None,
    )
    retrying = browser.get(url).content.decode()
    assert "Failed sealing attempts" in retrying
    assert "Seal retry at" in retrying
    assert "timestamp_unavailable: No timestamp authority answered." in retrying
    assert "Sealed at" not in retrying
