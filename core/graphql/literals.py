"""A validation rule that refuses text written in the query itself that is not text.

Variables arrive in the JSON or multipart body, which ``core.parsers`` checks as it reads them.
A string written in the query (``etchPacket(eid: "\\u0000")``) is decoded later, by GraphQL's
lexer; this rule gives it the same check (``core.engine.input_checks.text_problem``) before
anything runs, so no argument of any query or mutation, of today or to come, reaches a resolver
with NUL or another control character in it. (The lexer itself refuses lone surrogates.)

The refusal is a validation error in the shape of the API's others (``code`` ValidationError,
``fields`` naming the argument: ``eid``, ``signers.0.name``); the query does not run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import (
    ArgumentNode,
    GraphQLError,
    ListValueNode,
    ObjectValueNode,
    StringValueNode,
    ValidationRule,
    ValueNode,
    VariableDefinitionNode,
)

from core.engine.input_checks import text_problem


def _text_problems(value: ValueNode, path: str) -> Iterator[tuple[str, str]]:
    """(property, message) of each string in ``value`` that is not text. Recursion is bounded:
    GraphQL's parser refuses a document nested more than a few hundred levels."""
    if isinstance(value, StringValueNode):
        problem = text_problem(value.value)
        if problem is not None:
            yield path, problem
    elif isinstance(value, ListValueNode):
        for index, item in enumerate(value.values):
            yield from _text_problems(item, f"{path}.{index}")
    elif isinstance(value, ObjectValueNode):
        for field in value.fields:
            yield from _text_problems(field.value, f"{path}.{field.name.value}")


class TextLiteralRule(ValidationRule):
    def _report(self, node: Any, value: ValueNode | None, path: str) -> None:
        if value is None:
            return
        for property, message in _text_problems(value, path):
            self.report_error(
                GraphQLError(
                    f"{property}: {message}",
                    node,
                    extensions={
                        "code": "ValidationError",
                        "status": 400,
                        "fields": [{"message": message, "property": property}],
                    },
                )
            )

    def enter_argument(self, node: ArgumentNode, *_args: Any) -> None:
        self._report(node, node.value, node.name.value)

    def enter_variable_definition(self, node: VariableDefinitionNode, *_args: Any) -> None:
        # A default value is a variable's value when the body gives none.
        self._report(node, node.default_value, node.variable.name.value)
