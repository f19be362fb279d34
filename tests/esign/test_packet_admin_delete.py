"""Deleting a packet in the admin goes through the service (esign.sending.packets.packet_delete): an
open packet is voided first (its signers' events), then removed; a completed one is kept, on its
delete page and in the list's delete action alike."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from django.urls import reverse

from accounts.models import Organization
from esign.models import Packet
from tests.esign.conftest import esign_staff_client


@pytest.fixture
def staff_client(organization: Organization) -> Client:
    return esign_staff_client(organization)


def test_an_open_packet_is_deleted_with_its_stored_files(
    staff_client: Client, create_packet: Any, django_capture_on_commit_callbacks: Any
) -> None:
    packet = Packet.objects.get(eid=create_packet()["eid"])
    folder = f"packets/{packet.organization.eid}/{packet.eid}"
    assert default_storage.listdir(folder)[1]  # its documents are stored
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_client.post(
            reverse("admin:esign_packet_delete", args=[packet.pk]), {"post": "yes"}
        )
    assert response.status_code == 302
    assert not Packet.objects.filter(pk=packet.pk).exists()
    try:
        left = default_storage.listdir(folder)[1]
    except FileNotFoundError:
        left = []
    assert left == []  # removed after the commit, as removeEtchPacket does


def test_a_completed_packet_is_kept(staff_client: Client, complete: Any) -> None:
    _, packet = complete()
    page = staff_client.get(reverse("admin:esign_packet_delete", args=[packet.pk]))
    assert page.status_code == 403
    response = staff_client.post(
        reverse("admin:esign_packet_changelist"),
        {"action": "delete_selected", "_selected_action": [packet.pk], "post": "yes"},
    )
    assert response.status_code == 403
    assert Packet.objects.filter(pk=packet.pk).exists()
