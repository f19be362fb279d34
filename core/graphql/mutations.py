"""One pattern for every GraphQL mutation, as Saleor has its BaseMutation.

A mutation names its arguments and its output and calls one service function with the caller's
identity. Its errors need no mapping here: services raise ``core.errors.ServiceError``, which
``core.graphql.execution.format_error`` puts on the wire (message, code, status, fields) for
every operation alike, queries included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import graphene

from core.graphql.arguments import arguments_as_sent


class ServiceMutation(graphene.Mutation):
    """Subclasses declare ``Arguments`` and ``Output`` and define ``perform``.

    ``perform(identity, **arguments)``, a classmethod, receives the arguments under their Python
    names (graphene turns ``signerEid`` into ``signer_eid``), each as a keyword of its own, and
    returns the output: a model the output type resolves, or a scalar.

    A mutation whose service parses its arguments in their wire form (a shape given as JSON
    elsewhere too) sets ``arguments_as_sent``: ``perform(identity, arguments)`` then receives one
    dict keyed by the GraphQL names (``core.graphql.arguments``).
    """

    arguments_as_sent: ClassVar[bool] = False

    # Declared, not defined: each subclass's keywords are its own arguments (a base signature
    # would make every narrower one an incompatible override).
    perform: ClassVar[Callable[..., Any]]

    class Meta:
        abstract = True

    @classmethod
    def mutate(cls, root: Any, info: graphene.ResolveInfo, **arguments: Any) -> Any:
        # The caller, untyped here: core sits below accounts and cannot name its identities.
        # Resolvers in the apps use the typed ``accounts.identity.identity_of``; a mutation only
        # ever runs for an ``accounts.identity.ApiIdentity`` (members cannot mutate), which is
        # what every ``perform`` declares.
        identity = info.context.identity
        if cls.arguments_as_sent:
            return cls.perform(identity, arguments_as_sent(info, arguments))
        return cls.perform(identity, **arguments)
