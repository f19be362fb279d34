"""The wire descriptions of templates_app's GraphQL (templates_app/schema.py): ``cast`` and
the organization's ``casts``."""

from __future__ import annotations

# type -> field -> description; a field's argument as "field(argument)". Merged with the other
# apps' in config.graphql_docs and set on the root schema (core.graphql.descriptions).
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "Query": {
        "cast": "A PDF template of the caller's organization: its fields (`fieldInfo`) and a "
        "valid fill payload (`exampleData`).",
        "cast(eid)": "The template's eid (the one in /api/v1/fill/<eid>.pdf).",
        "cast(versionNumber)": "A published version's number; default: the latest published "
        "version (or the working version of a template never published).",
    },
    "Cast": {
        "eid": "The template's id (fill's URL, createEtchPacket's castEid).",
        "title": "The template's title.",
        "name": "The template's name, as its title.",
        "isTemplate": "Whether it is kept as a template (casts(isTemplate) filters on it).",
        "hasUnpublishedChanges": "The working version differs from the published one.",
        "hasBeenPublished": "A version was published (fills use the latest published one).",
        "publishedAt": "When the latest version was published (ISO 8601).",
        "createdAt": "ISO 8601.",
        "updatedAt": "ISO 8601.",
    },
    "Organization": {
        "casts": "The organization's templates.",
        "casts(isTemplate)": "true: templates only; false: the others; absent: all.",
    },
}
