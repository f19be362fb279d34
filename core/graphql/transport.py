"""GraphQL over HTTP as the published clients speak it: JSON bodies and multipart uploads.

Multipart follows the GraphQL multipart request spec: an ``operations`` part (JSON), a ``map``
part (JSON, possibly ``{}``) naming where each file part goes, and the file parts themselves,
keyed "0".."n" or "1".."n".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.errors import ValidationFailed
from core.uploads import UploadedBlob, blob_from_django_file


@dataclass(frozen=True)
class GraphQLRequest:
    query: str
    variables: dict[str, Any]
    operation_name: str | None


def _place(container: Any, path: list[str], value: Any) -> None:
    """Set ``value`` at a dotted path like ``variables.files.0.file``."""
    target = container
    for step in path[:-1]:
        target = target[int(step)] if isinstance(target, list) else target[step]
    last = path[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value


def apply_file_map(operations: Any, file_map: Any, files: dict[str, Any]) -> Any:
    if not isinstance(file_map, dict):
        raise ValidationFailed.single("map", "The map part must be a JSON object.")
    for key, paths in file_map.items():
        if key not in files:
            raise ValidationFailed.single(
                "map", f"The map names a file part '{key}' that is missing."
            )
        if not isinstance(paths, list):
            raise ValidationFailed.single("map", f"The map entry '{key}' must be a list of paths.")
        blob: UploadedBlob = blob_from_django_file(files[key])
        for path in paths:
            try:
                _place(operations, str(path).split("."), blob)
            except (KeyError, IndexError, ValueError, TypeError):
                raise ValidationFailed.single(
                    "map", f"The path '{path}' is not in the operations."
                ) from None
    return operations


def graphql_request_from(data: Any, files: dict[str, Any]) -> GraphQLRequest:
    """Build the request from a parsed body (JSON dict, or multipart parts and files)."""
    if isinstance(data, dict) and "operations" in data:
        operations = data["operations"]
        if not isinstance(operations, dict):
            raise ValidationFailed.single(
                "operations", "The operations part must be a JSON object."
            )
        data = apply_file_map(operations, data.get("map", {}), files)
    if not isinstance(data, dict):
        raise ValidationFailed.single("", "The body must be a JSON object with a 'query'.")
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValidationFailed.single("query", "Required")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict):
        raise ValidationFailed.single("variables", "Must be a JSON object.")
    operation_name = data.get("operationName") or None
    if operation_name is not None and not isinstance(operation_name, str):
        raise ValidationFailed.single("operationName", "Must be a string.")
    return GraphQLRequest(query=query, variables=variables, operation_name=operation_name)
