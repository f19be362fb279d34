"""The wire descriptions of workflows' GraphQL (workflows/schema.py): forgeSubmit (its arguments,
the shape inside its JSON payload included, as their model describes them:
workflows.engine.forge_arguments), the submissions and workflows it reads, and the
organization's ``welds``."""

from __future__ import annotations

from workflows.engine.forge_arguments import argument_descriptions

# type -> field -> description; a field's argument as "field(argument)". Merged with the other
# apps' in config.graphql_docs and set on the root schema (core.graphql.descriptions).
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "Query": {
        "weldData": "A workflow submission (weldData) of the caller's organization, by eid.",
        "weldData(eid)": "The weldData's eid (forgeSubmit's `weldData { eid }`).",
        "weld": "A workflow of the caller's organization, by eid or by its slugs.",
        "weld(eid)": "The workflow's eid.",
        "weld(organizationSlug)": "With slug: the organization's slug (the caller's own).",
        "weld(slug)": "With organizationSlug: the workflow's slug.",
    },
    "Mutation": {
        "forgeSubmit": "Start or continue a workflow submission through one of its webforms "
        "(forges). Without weldDataEid and submissionEid it starts a submission; with "
        "weldDataEid it adds (or updates) this webform's part of that submission; with "
        "submissionEid it updates that webform submission. `complete: true` finishes the "
        "webform; the last one fills the workflow's documents or starts its signing step. A "
        "completed submission is a ConflictError.",
        # Each argument as its model declares it (workflows.engine.forge_arguments).
        **{f"forgeSubmit({name})": text for name, text in argument_descriptions().items()},
        "removeWeldData": "Delete a workflow submission and what it made.",
        "removeWeldData(eid)": "The weldData's eid.",
    },
    "WeldData": {
        "id": "The same as eid.",
        "eid": "The submission's id (forgeSubmit's weldDataEid).",
        "status": "created, in-progress, ready-to-sign, awaiting-signatures, declined or "
        "completed.",
        "isTest": "A test submission.",
        "isComplete": "Every webform completed (and signed, with a signing step).",
        "displayTitle": "A title for lists.",
        "webhookURL": "The submission's own webhook URL, if one was given.",
        "continueURL": "A link that takes the person back to where they left off.",
        "downloadZipURL": "The filled (or signed) documents as a zip, once complete.",
        "versionNumber": "The workflow version the submission runs on.",
        "createdAt": "ISO 8601.",
        "updatedAt": "ISO 8601.",
        "completedAt": "ISO 8601.",
        "weld": "The workflow.",
        "submissions": "One webform submission per webform started.",
    },
    "Submission": {
        "id": "The same as eid.",
        "eid": "The webform submission's id (forgeSubmit's submissionEid).",
        "continueURL": "A link back to this webform for the person filling it.",
        "currentStep": "The page index the person is on.",
        "completedAt": "ISO 8601.",
        "createdAt": "ISO 8601.",
        "updatedAt": "ISO 8601.",
        "forge": "The webform.",
        "signer": "The signer, when this webform's person signs in the signing step.",
        "weldData": "The whole submission.",
    },
    "Weld": {
        "id": "The same as eid.",
        "eid": "The workflow's id.",
        "slug": "The workflow's slug, in its webform addresses.",
        "name": "The workflow's name.",
        "title": "The workflow's name, as its title.",
        "publishedNumber": "The number of the version new submissions run on.",
        "hasUnpublishedChanges": "The definition differs from the published version.",
        "createdAt": "ISO 8601.",
        "updatedAt": "ISO 8601.",
        "forges": "The workflow's webforms, in order.",
        "weldDatas": "The workflow's submissions, newest first.",
        "weldDatas(offset)": "How many submissions to skip (from 0).",
        "weldDatas(limit)": "How many submissions to return at most.",
    },
    "Forge": {
        "id": "The same as eid.",
        "eid": "The webform's id (forgeSubmit's forgeEid).",
        "slug": "The webform's slug.",
        "name": "The webform's name.",
        "title": "The webform's name, as its title.",
    },
    "Organization": {
        "welds": "The organization's workflows.",
    },
}
