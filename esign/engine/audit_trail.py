"""draw_audit_trail: the certificate of completion of a packet, as a PDF.

What it shows: the packet; each document with the SHA-256 of its PDF as prepared (before anyone
signed) and as sealed (what the signers' download holds); each signer with their adopted
signature (the drawn image or the typed text, as it was stamped) and every event of theirs with
its time, IP address and user agent; then the packet's own events. The service seals this PDF
too, so it cannot be changed without it showing.

Drawn with reportlab on US Letter pages, text through core.engine.pdf's TextSetter (glyph
fallback: any signer's name or user agent is drawn, whatever its script). A test packet's trail
carries the same test mark as its documents. Every value arrives as text formatted by the
caller (times included), but for the time the record was made, which is also the PDF's creation
date: the engine reads no clock. The PDF's author is the service that sealed it. The record's own
words (headings, labels, statuses) arrive translated in ``TrailLabels``, English by default: the
engine knows no catalogue.

Pure Python (no Django).
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from core.engine.fonts import DEFAULT_FAMILY, FontFace, FontLibrary
from core.engine.fonts.coverage import is_usable_truetype
from core.engine.fonts.shaping import LRI, PDI, RLI, isolate
from core.engine.images import LoadedImage
from core.engine.pdf.draw import Painter
from core.engine.pdf.text import LINE_SPACING, Line, TextSetter
from esign.engine.handwriting import handwriting_font_for
from esign.engine.signature_image import SignatureImageUnusable, signature_image
from esign.engine.stamp import HANDWRITING_FAMILY, stamp_pdf
from esign.engine.trail_records import (
    AuditTrail,
    TrailAttachment,
    TrailDocument,
    TrailEvent,
    TrailLabels,
    TrailSigner,
)

__all__ = [
    "AuditTrail",
    "TrailAttachment",
    "TrailDocument",
    "TrailEvent",
    "TrailLabels",
    "TrailSigner",
    "draw_audit_trail",
]

PAGE_WIDTH, PAGE_HEIGHT = 612.0, 792.0
TIME_FORMAT = "%Y-%m-%d %H:%M:%S UTC"
MARGIN = 54.0
CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN
INK = "#1A1A1A"
MUTED = "#5F6368"
RULE = "#C9CDD2"
ACCENT = "#174EA6"
TITLE_SIZE = 18.0
HEADING_SIZE = 12.0
TEXT_SIZE = 9.0
SMALL_SIZE = 7.5
HASH_FONT = "Courier"  # a base-14 face: hashes line up, and every hex digit is in it
SIGNATURE_BOX = (180.0, 54.0)


def draw_audit_trail(
    trail: AuditTrail, *, fonts: FontLibrary, handwriting_font: Path | None = None
) -> bytes:
    """The certificate of completion of ``trail`` (PDF bytes), test-marked for test packets.

    handwriting_font: the service's handwriting font (Kristi); each typed signature is drawn in
    the handwriting face of its letters found beside it, as the stamp chose it
    (esign.engine.handwriting); in Noto Sans Italic when no face has them, as the stamp does
    (and with None, or a file that is not usable).
    """
    # Laid out twice: the first pass counts the pages for the "page n of m" footers. The text is
    # split into glyph runs and measured once (the setter keeps its lines for the second pass).
    setter = _MemoSetter(fonts)
    pages = _Layout(trail, fonts, handwriting_font, setter, total_pages=0).draw()[1]
    pdf, _ = _Layout(trail, fonts, handwriting_font, setter, total_pages=pages).draw()
    if trail.is_test:
        pdf = stamp_pdf(pdf, [], fonts=fonts, handwriting_font=None, test_mark=True)
    return pdf


class _MemoSetter(TextSetter):
    """A TextSetter that keeps the lines it made: both layout passes of a trail set the same
    text, and splitting it into glyph runs is most of the drawing's time."""

    def __init__(self, fonts: FontLibrary) -> None:
        super().__init__(fonts)
        self._lines: dict[tuple[str, FontFace, float], Line] = {}
        self._wrapped: dict[tuple[str, FontFace, float, float, bool], list[Line]] = {}

    def line(self, text: str, face: FontFace, size: float) -> Line:
        key = (text, face, size)
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = super().line(text, face, size)
        return line

    def wrap(
        self, text: str, face: FontFace, size: float, width: float, *, bidi: bool = True
    ) -> list[Line]:
        key = (text, face, size, width, bidi)
        lines = self._wrapped.get(key)
        if lines is None:
            lines = self._wrapped[key] = super().wrap(text, face, size, width, bidi=bidi)
        return list(lines)


class _Layout:
    def __init__(
        self,
        trail: AuditTrail,
        fonts: FontLibrary,
        handwriting_font: Path | None,
        setter: TextSetter,
        *,
        total_pages: int,
    ) -> None:
        self.trail = trail
        self.labels = labels = trail.labels
        self.fonts = fonts
        self.total_pages = total_pages
        self.buffer = io.BytesIO()
        self.canvas = Canvas(self.buffer, pagesize=(PAGE_WIDTH, PAGE_HEIGHT), invariant=1)
        self.canvas.setTitle(labels.document_title.format(packet=trail.packet_name))
        self.canvas.setSubject(labels.document_subject.format(packet=trail.packet_eid))
        self.canvas.setAuthor(trail.sealed_by)
        # invariant=1 keeps the file's ids stable; its dates are this record's, not 2000-01-01.
        made = trail.generated_at.astimezone(UTC).strftime("D:%Y%m%d%H%M%S+00'00'")
        self.canvas.setDateFormatter(lambda *_: made)
        self.setter = setter
        self.painter = Painter(self.canvas, self.setter)
        self.regular = fonts.resolve(DEFAULT_FAMILY)
        self.bold = fonts.resolve(DEFAULT_FAMILY, bold=True)
        self.hash_face = fonts.resolve(HASH_FONT)
        self.handwriting_font = handwriting_font
        self.italic = fonts.resolve(DEFAULT_FAMILY, italic=True)
        self.page = 1
        self.y = PAGE_HEIGHT - MARGIN
        self.right_to_left = labels.right_to_left

    # --- the document -----------------------------------------------------------------------------
    def draw(self) -> tuple[bytes, int]:
        trail, labels = self.trail, self.labels
        self.text(labels.title, self.bold, TITLE_SIZE, color=ACCENT)
        self.space(4)
        self.text(trail.packet_name, self.bold, HEADING_SIZE)
        self.space(6)
        made = trail.generated_at.astimezone(UTC).strftime(TIME_FORMAT)
        self.pairs(
            [
                (labels.packet, trail.packet_eid),
                (labels.organization, trail.organization),
                (labels.status, labels.status_of(trail.status)),
                (labels.created, trail.created_at),
                (labels.completed, trail.completed_at),
                (labels.sealed_by, trail.sealed_by),
                (labels.record_made, made),
            ]
        )
        if trail.is_test:
            self.space(4)
            self.text(labels.test_packet, self.bold, TEXT_SIZE, color="#C62828")
        self.section(labels.documents)
        self.text(labels.documents_note, self.regular, SMALL_SIZE, color=MUTED)
        for document in trail.documents:
            self.space(6)
            self.keep(4 * TEXT_SIZE * LINE_SPACING + 12)
            heading = document.title or document.filename
            count = labels.one_page if document.pages == 1 else labels.pages
            pages = count.format(count=document.pages)
            line = f"{isolate(heading)}  ({isolate(document.filename)}, {pages})"
            self.text(self.sentence(line), self.bold, TEXT_SIZE)
            self.hash_line(labels.before_signing, document.prepared_sha256)
            self.hash_line(labels.sealed, document.sealed_sha256)
        if trail.attachments:
            self.attachments(trail.attachments)
        self.section(labels.signers)
        for signer in trail.signers:
            self.signer(signer)
        if trail.packet_events:
            self.section(labels.packet_history)
            self.events(trail.packet_events, with_client=False)
        self.footer()
        self.canvas.showPage()
        if not self.total_pages:
            return b"", self.page  # the counting pass: nothing to write (fonts subset, compress)
        self.canvas.save()
        return self.buffer.getvalue(), self.page

    def attachments(self, attachments: Sequence[TrailAttachment]) -> None:
        labels = self.labels
        self.section(labels.attachments)
        self.text(labels.attachments_note, self.regular, SMALL_SIZE, color=MUTED)
        for attached in attachments:
            self.space(6)
            self.keep(3 * TEXT_SIZE * LINE_SPACING + 12)
            heading = (
                f"{isolate(attached.label)}  ({isolate(attached.filename)}, "
                f"{isolate(attached.size)})"
            )
            self.text(self.sentence(heading), self.bold, TEXT_SIZE)
            by = labels.attached_by.format(
                signer=isolate(attached.signer), time=isolate(attached.attached_at)
            )
            self.text(self.sentence(by), self.regular, TEXT_SIZE, color=MUTED)
            self.hash_line("SHA-256", attached.sha256)

    def signer(self, signer: TrailSigner) -> None:
        self.space(8)
        self.keep(SIGNATURE_BOX[1] + 4 * TEXT_SIZE * LINE_SPACING + 20)
        self.text(f"{signer.name}", self.bold, HEADING_SIZE - 1)
        labels = self.labels
        details = [
            (labels.email, signer.email or labels.none),
            (labels.routing_order, str(signer.routing_order)),
            (labels.status, labels.status_of(signer.status)),
        ]
        if signer.role:  # an approver or a viewer: their events say what they did, no signature
            self.pairs([*details, (labels.role, signer.role)])
        else:
            signed = (labels.signed, signer.completed_at or labels.not_signed)
            level = [(labels.signature_level, signer.signature_level)]
            self.pairs([*details, signed, *(level if signer.signature_level else [])])
            self.space(4)
            self.adopted_signature(signer)
        if signer.events:
            self.space(4)
            self.events(signer.events, with_client=True)

    def adopted_signature(self, signer: TrailSigner) -> None:
        width, height = SIGNATURE_BOX
        label_width = 110.0
        self.keep(height + 6)
        top = self.y
        self.draw_line(
            self.setter.line(self.labels.adopted_signature, self.regular, TEXT_SIZE),
            MARGIN,
            top - TEXT_SIZE,
            TEXT_SIZE,
            MUTED,
        )
        x, y = self.across(MARGIN + label_width, width), top - height
        self.canvas.saveState()
        self.canvas.setStrokeColor(HexColor(RULE))
        self.canvas.setLineWidth(0.5)
        self.canvas.rect(x, y, width, height, stroke=1, fill=0)
        self.canvas.translate(x + 4, y + 4)
        image = _signature_image(signer.signature_png) if signer.signature_png else None
        if image is not None:
            self.painter.image(image, width - 8, height - 8)
        elif signer.signature_text:
            face = self.handwriting(signer.signature_text)
            line, size = self.setter.fit_line(
                signer.signature_text, face, 28.0, width - 8, height - 8, True
            )
            ascent, descent = self.setter.extent(self.setter.font_name(face))
            baseline = (height - 8 - (ascent - descent) * size) / 2 - descent * size
            self.draw_line(line, (width - 8 - line.width) / 2, baseline, size, INK, placed=True)
        else:
            none = self.setter.line(self.labels.none_adopted, self.regular, TEXT_SIZE)
            start = width - 8 - 4 - none.width if self.right_to_left else 4
            self.draw_line(none, start, (height - 8) / 2, TEXT_SIZE, MUTED, placed=True)
        self.canvas.restoreState()
        labels = self.labels
        kind = labels.drawn if image is not None else labels.typed if signer.signature_text else ""
        if kind:
            said = self.setter.line(kind, self.regular, SMALL_SIZE)
            beside = x - 6 - said.width if self.right_to_left else x + width + 6
            self.draw_line(said, beside, y + 2, SMALL_SIZE, MUTED, placed=True)
        self.y = y - 4

    def handwriting(self, text: str) -> FontFace:
        """The face a typed signature was stamped in (esign.engine.stamp, under the same name):
        the handwriting face of its letters; Noto Sans Italic when no face has them, or without
        a usable handwriting font."""
        latin = self.handwriting_font
        path = handwriting_font_for(latin, text) if latin is not None else None
        if path is None or not _usable_truetype(path):
            return self.italic
        return FontFace(HANDWRITING_FAMILY, False, False, path=path)

    def events(self, events: Sequence[TrailEvent], *, with_client: bool) -> None:
        labels = self.labels
        if with_client:
            columns = [(labels.time, 96.0), (labels.event, 110.0), (labels.ip_address, 78.0)]
            columns.append((labels.user_agent, CONTENT_WIDTH - 284.0))
        else:
            columns = [(labels.time, 96.0), (labels.event, 150.0)]
            columns.append((labels.detail, CONTENT_WIDTH - 246.0))
        rows = []
        for event in events:
            # The detail is a sentence in the reader's language with values isolated in it
            # (esign.sealing.certificate); put after the action, it is isolated in turn.
            if with_client:
                action = event.action
                if event.detail:
                    action = self.sentence(f"{event.action} ({isolate(event.detail)})")
                rows.append([event.at, action, event.ip or "-", event.user_agent or "-"])
            else:
                detail = self.sentence(event.detail) if event.detail else ""
                rows.append([event.at, event.action, detail])
        self.table(columns, rows)

    # --- primitives -----------------------------------------------------------------------------
    def section(self, title: str) -> None:
        self.space(14)
        self.keep(HEADING_SIZE * 3)
        self.text(title, self.bold, HEADING_SIZE, color=ACCENT)
        self.canvas.saveState()
        self.canvas.setStrokeColor(HexColor(RULE))
        self.canvas.setLineWidth(0.6)
        self.canvas.line(MARGIN, self.y + 1, PAGE_WIDTH - MARGIN, self.y + 1)
        self.canvas.restoreState()
        self.space(4)

    def space(self, height: float) -> None:
        self.y -= height

    def keep(self, height: float) -> None:
        """Start a new page unless ``height`` more points fit on this one."""
        if self.y - height < MARGIN + 20:
            self.new_page()

    def new_page(self) -> None:
        self.footer()
        self.canvas.showPage()
        self.page += 1
        self.y = PAGE_HEIGHT - MARGIN

    def footer(self) -> None:
        trail, labels = self.trail, self.labels
        pages = (
            labels.footer_page.format(page=self.page, pages=self.total_pages)
            if self.total_pages
            else ""
        )
        packet = labels.footer_packet.format(packet=isolate(trail.packet_eid))
        text = self.sentence(f"{labels.title}  |  {packet}  |  {pages}")
        line = self.setter.line(text, self.regular, SMALL_SIZE)
        self.draw_line(line, MARGIN, MARGIN - 24, SMALL_SIZE, MUTED)

    def sentence(self, text: str) -> str:
        """``text``, words of the record with values isolated in it, set in the page's direction
        (an isolate of it): on an Arabic page "Invoice  (tpl-1.pdf, 1 page)" reads from the
        right, its brackets around the file name, whatever the title's script."""
        return f"{RLI if self.right_to_left else LRI}{text}{PDI}"

    def across(self, x: float, width: float) -> float:
        """Where something ``width`` wide laid out at ``x`` from the left margin is drawn: there,
        or mirrored (the same distance from the right margin) on a right-to-left page."""
        return PAGE_WIDTH - x - width if self.right_to_left else x

    def draw_line(
        self,
        line: Line,
        x: float,
        baseline: float,
        size: float,
        color: str,
        *,
        placed: bool = False,
    ) -> None:
        """``line`` at ``x`` of the layout (mirrored on a right-to-left page), or, ``placed``,
        exactly at ``x`` of the current coordinates."""
        if not placed:
            x = self.across(x, line.width)
        text = self.canvas.beginText()
        text.setTextOrigin(x, baseline)
        text.setFillColor(HexColor(color))
        for name, part in line.runs:
            text.setFont(name, size)
            text.textOut(part)
        self.canvas.drawText(text)

    def text(
        self,
        value: str,
        face: FontFace,
        size: float,
        *,
        color: str = INK,
        x: float = MARGIN,
        width: float = CONTENT_WIDTH,
    ) -> None:
        """Wrapped to ``width`` from the current position down, page breaks included."""
        for line in self.setter.wrap(value, face, size, width + 4):  # wrap pads 2 on each side
            self.keep(size * LINE_SPACING)
            self.y -= size * LINE_SPACING
            self.draw_line(line, x, self.y + size * 0.25, size, color)

    def hash_line(self, label: str, digest: str) -> None:
        self.keep(TEXT_SIZE * LINE_SPACING)
        self.y -= TEXT_SIZE * LINE_SPACING
        baseline = self.y + TEXT_SIZE * 0.25
        self.draw_line(
            self.setter.line(label, self.regular, TEXT_SIZE), MARGIN, baseline, TEXT_SIZE, MUTED
        )
        self.draw_line(
            self.setter.line(digest or "-", self.hash_face, TEXT_SIZE - 0.5),
            MARGIN + 90,
            baseline,
            TEXT_SIZE - 0.5,
            INK,
        )

    def pairs(self, pairs: Sequence[tuple[str, str]]) -> None:
        for key, value in pairs:
            lines = self.setter.wrap(value or "-", self.regular, TEXT_SIZE, CONTENT_WIDTH - 86)
            self.keep(len(lines) * TEXT_SIZE * LINE_SPACING)
            top = self.y
            label = self.setter.line(key, self.regular, TEXT_SIZE)
            self.draw_line(
                label, MARGIN, top - TEXT_SIZE * LINE_SPACING + TEXT_SIZE * 0.25, TEXT_SIZE, MUTED
            )
            for line in lines:
                self.y -= TEXT_SIZE * LINE_SPACING
                self.draw_line(line, MARGIN + 90, self.y + TEXT_SIZE * 0.25, TEXT_SIZE, INK)

    def table(self, columns: Sequence[tuple[str, float]], rows: Sequence[Sequence[str]]) -> None:
        size, leading = SMALL_SIZE, SMALL_SIZE * LINE_SPACING

        def header() -> None:
            self.keep(leading * 2)
            x = MARGIN
            self.y -= leading
            for title, width in columns:
                self.draw_line(
                    self.setter.line(title, self.bold, size), x, self.y + size * 0.25, size, MUTED
                )
                x += width
            self.canvas.saveState()
            self.canvas.setStrokeColor(HexColor(RULE))
            self.canvas.setLineWidth(0.4)
            self.canvas.line(MARGIN, self.y - 2, PAGE_WIDTH - MARGIN, self.y - 2)
            self.canvas.restoreState()
            self.y -= 3

        header()
        for row in rows:
            cells = [
                self.setter.wrap(value, self.regular, size, width)
                for value, (_, width) in zip(row, columns, strict=True)
            ]
            height = max(len(lines) for lines in cells) * leading
            if self.y - height < MARGIN + 20:
                self.new_page()
                header()
            x = MARGIN
            for lines, (_, width) in zip(cells, columns, strict=True):
                baseline = self.y - leading + size * 0.25
                for line in lines:
                    self.draw_line(line, x, baseline, size, INK)
                    baseline -= leading
                x += width
            self.y -= height + 2


@functools.lru_cache(maxsize=8)
def _usable_truetype(path: Path) -> bool:
    """is_usable_truetype, once per process for the handwriting font (a file of the service's)."""
    return is_usable_truetype(path)


# Decoded and cropped once per process for the passes and trails of a packet (the one a sealed
# document carries and the final one): the same few images, a few hundred kilobytes at most.
@functools.lru_cache(maxsize=16)
def _signature_image(data: bytes) -> LoadedImage | None:
    """The drawn signature cropped to its ink, or None when it is not a usable PNG (the trail
    then says nothing was adopted rather than failing: the image was checked at signing)."""
    try:
        return signature_image(data)
    except SignatureImageUnusable:
        return None
