"""A printable validation report: the verifier's result drawn as a PDF to keep with the file.

Pure drawing: every word is passed in (esign.verify.signatures builds the text from a verification),
so the report says exactly what the page and the JSON report say. Drawn with reportlab's platypus,
which flows the sections over as many pages as they need; ``invariant`` keeps the output free of the
current time (the verification time is in the text).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

# Values drawn in a fixed-width font (a hash reads better, and fits, that way).
MONOSPACED = "Courier"


@dataclass(frozen=True)
class ReportSection:
    """One signature or document timestamp: its heading, its (label, value) rows and its
    findings in words."""

    heading: str
    rows: tuple[tuple[str, str], ...]
    findings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportText:
    title: str
    summary: tuple[tuple[str, str], ...]  # (label, value): the file, its hash, the time, ...
    verdict: str
    verdict_meaning: str
    problems: tuple[str, ...] = ()
    sections: tuple[ReportSection, ...] = ()
    closing: str = ""
    monospaced_labels: frozenset[str] = frozenset()  # summary/row labels drawn in MONOSPACED


def report_pdf(text: ReportText) -> bytes:
    """The report as PDF bytes."""
    styles = getSampleStyleSheet()
    body = styles["BodyText"]
    cell = ParagraphStyle("cell", parent=body, fontSize=9, leading=11)
    label = ParagraphStyle("label", parent=cell, fontName="Helvetica-Bold")
    mono = ParagraphStyle("mono", parent=cell, fontName=MONOSPACED, fontSize=8)

    def table(rows: tuple[tuple[str, str], ...]) -> Table:
        data = [
            [
                Paragraph(escape(name), label),
                Paragraph(escape(value), mono if name in text.monospaced_labels else cell),
            ]
            for name, value in rows
        ]
        drawn = Table(data, colWidths=(42 * mm, 128 * mm))
        drawn.setStyle(
            TableStyle(
                [
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.lightgrey),
                ]
            )
        )
        return drawn

    story: list[Flowable] = [
        Paragraph(escape(text.title), styles["Title"]),
        table(text.summary),
        Spacer(1, 4 * mm),
        Paragraph(f"<b>{escape(text.verdict)}.</b> {escape(text.verdict_meaning)}", body),
    ]
    story += [Paragraph(f"&bull; {escape(p)}", body) for p in text.problems]
    for section in text.sections:
        story += [Spacer(1, 3 * mm), Paragraph(escape(section.heading), styles["Heading3"])]
        story.append(table(section.rows))
        story += [Paragraph(f"&bull; {escape(f)}", cell) for f in section.findings]
    if text.closing:
        story += [Spacer(1, 6 * mm), Paragraph(escape(text.closing), cell)]

    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer,
        pagesize=A4,
        title=text.title,
        invariant=1,
        leftMargin=20 * mm,
        rightMargin=20 * mm,
        topMargin=18 * mm,
        bottomMargin=18 * mm,
    )
    document.build(story)
    return buffer.getvalue()
