"""Bulk sends (an extension): one packet shape, many rows, one packet per row (esign.bulk.sends).

A batch keeps the createEtchPacket arguments with ``{{column}}`` placeholders (its shape) and
its rows, each with its values and, once the background task reached it, its outcome: the
packet it created or the problems that stopped it. The row is marked done in the transaction
that writes its packet, so a task resumed after a crash skips it: no row is sent twice.
Imported by esign.models, so Django sees these models as the esign app's.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from accounts.models import Organization
from core.fields import EidField


class BulkBatchStatus(models.TextChoices):
    # Labels in the context "status": "Created" or "Completed" alone are the audit trail's
    # column titles, which some languages word as dates.

    # uploaded in the admin and previewed, not sent yet
    DRAFT = "draft", pgettext_lazy("status", "Draft")
    # rows are waiting; the task is queued, paced or running
    SENDING = "sending", pgettext_lazy("status", "Sending")
    # every row has its outcome (created or failed)
    COMPLETED = "completed", pgettext_lazy("status", "Completed")
    # stopped by staff: rows still waiting stay so
    CANCELLED = "cancelled", pgettext_lazy("status", "Cancelled")


class BulkRowStatus(models.TextChoices):
    PENDING = "pending", pgettext_lazy("status", "Pending")
    CREATED = "created", pgettext_lazy("status", "Created")
    FAILED = "failed", pgettext_lazy("status", "Failed")


class BulkBatch(models.Model):
    Status = BulkBatchStatus

    eid = EidField()
    organization = models.ForeignKey(
        Organization,
        on_delete=models.CASCADE,
        related_name="bulk_batches",
        verbose_name=_("organization"),
    )
    name = models.CharField(_("name"), max_length=255)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.SENDING
    )
    # createEtchPacket's arguments in their wire form, strings holding {{column}} placeholders.
    shape = models.JSONField()
    columns = models.JSONField(default=list)  # the rows' columns, in their order
    watermark = models.BooleanField(default=False)  # created with a development key
    created_by = models.CharField(_("created by"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    # When the next chunk of rows is due (the pace of outgoing mail); the sweep enqueues a batch
    # again whose task is lost (esign.sweeps).
    next_run_at = models.DateTimeField(null=True, blank=True)
    rows_total = models.PositiveIntegerField(default=0)
    rows_created = models.PositiveIntegerField(default=0)
    rows_failed = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("bulk send")
        verbose_name_plural = _("bulk sends")
        indexes = [models.Index(fields=["status", "next_run_at"], name="esign_bulk_due")]

    def __str__(self) -> str:
        return self.name

    @property
    def rows_done(self) -> int:
        return self.rows_created + self.rows_failed


class BulkRow(models.Model):
    Status = BulkRowStatus

    batch = models.ForeignKey(BulkBatch, on_delete=models.CASCADE, related_name="rows")
    index = models.PositiveIntegerField()  # from 0, as the API's rows.N
    values = models.JSONField(default=dict)  # column -> text
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    packet = models.ForeignKey(
        "esign.Packet", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    packet_eid = models.CharField(max_length=40, blank=True)  # kept if the packet is removed
    # [{"property", "message"}]: why the row failed, or (a draft's) why it cannot be sent
    errors = models.JSONField(default=list)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["batch", "index"], name="esign_bulk_row_index")
        ]
        indexes = [models.Index(fields=["batch", "status", "index"], name="esign_bulk_row_due")]

    def __str__(self) -> str:
        return f"row {self.index + 1}"
