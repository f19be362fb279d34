"""How the audit trail names a signer's own signature (signatureLevel advanced or qualified):
the level, the document and the certificate, in the trail's language."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from core.engine.fonts.shaping import isolate


def level_label(level: str) -> str:
    return {
        "simple": gettext("simple electronic signature"),
        "advanced": gettext("advanced electronic signature"),
        "qualified": gettext("qualified electronic signature"),
    }.get(level, level)


def signer_certified_text(detail: dict[str, Any]) -> str:
    certificate = detail.get("certificate") or {}
    return gettext(
        "{level} on “{document}”; certificate {subject}, issued by {issuer}, serial {serial}"
    ).format(
        level=level_label(str(detail.get("level", ""))),
        document=isolate(str(detail.get("document", ""))),
        subject=isolate(str(certificate.get("subject", ""))),
        issuer=isolate(str(certificate.get("issuer", ""))),
        serial=str(certificate.get("serial", "")),
    )
