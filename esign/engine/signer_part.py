"""The base of a signer's objects (the signer, its field references, verify, group and
attachment fields): a module of its own so that esign.engine.signer_model can declare a
signer's ``attachments`` with esign.engine.attachment_model, whose model is one of them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import model_validator

from core.engine.wire_models import WireModel


class SignerPart(WireModel):
    """A WireModel whose ``NULL_IS_A_VALUE`` keys keep a null as sent: today's parser refuses
    (or reads as false) a null there, where a null elsewhere is a key left out."""

    NULL_IS_A_VALUE: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _null_is_not_given(cls, data: object) -> object:
        if isinstance(data, Mapping):
            kept = cls.NULL_IS_A_VALUE
            return {k: v for k, v in data.items() if v is not None or k in kept}
        return data
