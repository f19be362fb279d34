"""Field resolvers the schemas share. A field that reads an attribute of another name says so with
graphene's ``source="attribute"``; one whose stored "" means "not set" on the wire (null, as the
published clients expect) uses ``resolver=or_none("attribute")``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def or_none(attribute: str) -> Callable[..., Any]:
    """Resolves to the parent's ``attribute``, or None where it is empty (the attributes it
    serves are text: "" is stored for "not set")."""

    def resolve(parent: Any, info: Any, **arguments: Any) -> Any:
        return getattr(parent, attribute) or None

    return resolve
