"""The wire descriptions of accounts' GraphQL (accounts/schema.py): ``currentUser``, its User
and the organization's own fields."""

from __future__ import annotations

# type -> field -> description; a field's argument as "field(argument)". Merged with the other
# apps' in config.graphql_docs and set on the root schema (core.graphql.descriptions).
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "Query": {
        "currentUser": "Who the API key acts for, and its organization (a key sees one).",
    },
    "User": {
        "eid": "The member's id (for an API key: the key's id).",
        "name": "The member's name.",
        "email": "The member's email address.",
        "role": "owner, admin or member of the organization; api for a key of nobody.",
        "organizations": "The organization the key (or session) acts for.",
    },
    "Organization": {
        "eid": "The organization's id (createEtchPacket's organizationEid).",
        "name": "The organization's name.",
        "slug": "The organization's slug, in its webform addresses.",
    },
}
