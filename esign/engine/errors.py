"""Errors of the e-signature engine. Each has a stable ``code``; problems carry dotted paths."""

from __future__ import annotations

from typing import ClassVar

from core.engine.problems import EngineError, ErrorKind, InvalidInput


class EsignError(EngineError):
    code = "esign_error"


class StampInvalid(InvalidInput, EsignError):
    """A stamp cannot be drawn: a page the document does not have, an unusable signature image.

    Paths name the stamp by its index in the sequence given and the attribute at fault
    (``stamps.2.image_png``); the service maps them to the field they stand for.
    """


class HandwritingFontUnusable(EsignError):
    """The configured handwriting font is not a TrueType-outline file: a deployment mistake."""

    code = "handwriting_font_unusable"


class PageUnavailable(EsignError):
    """A page that cannot be drawn: the document has no such page, or cannot be read."""

    code = "page_unavailable"


class SealError(EsignError):
    """The document could not be sealed; ``log_detail`` says why (never document content)."""

    code = "seal_failed"
    kind: ClassVar[ErrorKind] = "internal"
    # Whether trying again later may succeed (a TSA or an HSM that is away); a seal that cannot
    # succeed until an operator acts fails at once.
    retryable: ClassVar[bool] = True


class TimestampUnavailable(SealError):
    """No timestamp authority gave a usable timestamp: retry later, never seal without one."""

    code = "timestamp_unavailable"
    kind = "unavailable"


class SealKeyUnavailable(SealError):
    """The seal's key cannot be used now: the PKCS#11 module, token, PIN, key or certificate."""

    code = "seal_key_unavailable"
    kind: ClassVar[ErrorKind] = "unavailable"


class SealKeyTooWeak(SealKeyUnavailable):
    """The seal's key is weaker than a seal may use: an operator must configure another."""

    code = "seal_key_too_weak"
    kind: ClassVar[ErrorKind] = "internal"


class ValidationDataUnavailable(SealError):
    """The long-term validation data of the seal's or the TSA's certificate chain could not be
    gathered (an untrusted TSA, an unreachable OCSP responder or CRL)."""

    code = "validation_data_unavailable"
    kind = "unavailable"


class SealCertificateRevoked(SealError):
    """A certificate of the seal's chain (or of a timestamp authority's) is revoked, as its
    CA's OCSP responder or CRL says: nothing can be sealed with it, and retrying changes
    nothing until an operator configures another key (or TSA)."""

    code = "seal_certificate_revoked"
    kind: ClassVar[ErrorKind] = "internal"
    retryable: ClassVar[bool] = False


class RenewalTooLate(SealError):
    """The last timestamp of a sealed file can no longer be checked (its certificate expired):
    a new timestamp over it would prove nothing, so the file is not renewed."""

    code = "renewal_too_late"
    kind: ClassVar[ErrorKind] = "internal"
    retryable: ClassVar[bool] = False
