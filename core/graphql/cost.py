"""A validation rule that refuses GraphQL queries too costly to run: too deep, too many aliases,
too many fields.

One request could ask for the same expensive list 1,300 times under aliases and get 19 MB back.
The rule measures the operation as it would run: a fragment counts each time it is spread (a
fragment that spreads another twice, forty levels down, is refused after a few hundred fields
are counted, not after 2^40). Introspection (``__schema``, ``__type``) does not count towards
the depth, which the schema bounds anyway; its fields and aliases count like any other. The
refusal is a GraphQL validation error: the query does not run.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from graphql import (
    ASTValidationRule,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationContext,
    specified_rules,
)

COST_ERROR_CODE = "QUERY_TOO_COMPLEX"


@dataclass(frozen=True)
class CostLimits:
    max_depth: int
    max_aliases: int
    max_fields: int


# Counting stops here: enough to name the count of any query that fits in the length limit
# without fragments, and quick to reach for fragments that multiply.
_COUNT_CEILING = 10_000


@dataclass
class _Tally:
    fields: int = 0
    aliases: int = 0
    depth: int = 0

    @property
    def stopped(self) -> bool:
        return self.fields > _COUNT_CEILING


class _QueryCostRule(ASTValidationRule):
    limits: CostLimits  # set by `query_cost_rule`

    def __init__(self, context: ValidationContext) -> None:
        super().__init__(context)
        self.fragments = {
            definition.name.value: definition
            for definition in context.document.definitions
            if isinstance(definition, FragmentDefinitionNode)
        }

    def enter_operation_definition(self, node: OperationDefinitionNode, *_args: Any) -> None:
        tally = _Tally()
        self._walk(node.selection_set, tally, depth=0, spreading=frozenset())
        for message in _problems(tally, self.limits):
            self.report_error(GraphQLError(message, node, extensions={"code": COST_ERROR_CODE}))

    def _walk(
        self,
        selection_set: SelectionSetNode,
        tally: _Tally,
        *,
        depth: int | None,
        spreading: frozenset[str],
    ) -> None:
        """Count the fields and aliases under ``selection_set`` at ``depth`` (None: inside
        introspection, which does not count towards the depth)."""
        for selection in selection_set.selections:
            if tally.stopped:
                return
            if isinstance(selection, FieldNode):
                tally.fields += 1
                tally.aliases += selection.alias is not None
                below = None
                if depth is not None and not selection.name.value.startswith("__"):
                    below = depth + 1
                    tally.depth = max(tally.depth, below)
                if selection.selection_set is not None:
                    self._walk(selection.selection_set, tally, depth=below, spreading=spreading)
            elif isinstance(selection, InlineFragmentNode):
                self._walk(selection.selection_set, tally, depth=depth, spreading=spreading)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                fragment = self.fragments.get(name)
                # An unknown fragment, or a cycle, is reported by the specified rules.
                if fragment is not None and name not in spreading:
                    self._walk(
                        fragment.selection_set, tally, depth=depth, spreading=spreading | {name}
                    )


def _problems(tally: _Tally, limits: CostLimits) -> list[str]:
    problems = []
    if tally.depth > limits.max_depth:
        problems.append(
            f"The query is {tally.depth} levels deep; at most {limits.max_depth} are allowed."
        )
    if tally.aliases > limits.max_aliases:
        problems.append(
            f"The query has {tally.aliases} aliases; at most {limits.max_aliases} are allowed."
        )
    if tally.fields > limits.max_fields:
        count = f"more than {_COUNT_CEILING}" if tally.stopped else str(tally.fields)
        problems.append(
            f"The query selects {count} fields; at most {limits.max_fields} are allowed."
        )
    return problems


@functools.cache
def query_cost_rule(limits: CostLimits) -> type[ASTValidationRule]:
    """The validation rule for these limits (one class per distinct limits)."""
    return type("QueryCostRule", (_QueryCostRule,), {"limits": limits})


def validation_rules() -> tuple[type[ASTValidationRule], ...]:
    """GraphQL's specified rules and the cost rule, with the limits of the settings."""
    limits = CostLimits(
        max_depth=settings.GRAPHQL_MAX_DEPTH,
        max_aliases=settings.GRAPHQL_MAX_ALIASES,
        max_fields=settings.GRAPHQL_MAX_FIELDS,
    )
    return (*specified_rules, query_cost_rule(limits))
