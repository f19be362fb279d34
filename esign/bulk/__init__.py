"""Bulk sends (an extension): one packet shape, many rows, one packet per row; read from a CSV
or XLSX upload in the admin or given through GraphQL, sent by a background task.

This face lists what other apps use (the root GraphQL schema and its descriptions); esign's own
modules import the modules themselves."""

from __future__ import annotations

from esign.bulk.graphql_docs import DESCRIPTIONS
from esign.bulk.schema import Mutation, Query

__all__ = ["DESCRIPTIONS", "Mutation", "Query"]
