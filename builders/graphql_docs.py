"""The wire descriptions of the embedded builders' GraphQL (builders/schema.py)."""

from __future__ import annotations

DESCRIPTIONS: dict[str, dict[str, str]] = {
    "Mutation": {
        "generateEmbedURL": "A URL that opens one builder on one object of the caller's "
        "organization, for an integrator's user who has no account here: the PDF template "
        "editor (`edit-pdf-template`), the packet builder (`edit-etch-packet`) or the webform "
        "builder (`edit-workflow`). Frame it with AnvilEmbedFrame on a page of one of the "
        "organization's embedding origins (the only pages allowed to frame it); it posts "
        "`castEdit`, `castPublish`, `etchPacketSent`, `weldEdit`, `weldPublish` and "
        "`embedError` events there. See docs/embedding-builders.md.",
        "generateEmbedURL(eid)": "What the builder opens: a template's eid for "
        "`edit-pdf-template`; the organization's eid for `edit-etch-packet` (the builder "
        "creates a new packet); a workflow's (weld's) eid for `edit-workflow`.",
        "generateEmbedURL(type)": "`edit-pdf-template`, `edit-etch-packet` or `edit-workflow`.",
        "generateEmbedURL(validForSeconds)": "How long the URL works, 1 to 604800 seconds "
        "(default 7200).",
        "generateEmbedURL(metadata)": "Any JSON object of yours, kept with the token "
        "(at most 4096 characters).",
        "generateEmbedURL(options)": "The builder's options: `pageTitle` (both); for "
        "`edit-etch-packet`, `castEids` (the only templates the user may choose) and `isTest` "
        "(a test packet); for `edit-workflow`, `forgeEid` (which webform; default: the first).",
        "generateEmbedURL(permissions)": "Extension. What the user may do: `edit` and "
        "`publish` for a template or a workflow, `edit` and `send` for a packet (with `edit` "
        "only, the packet is saved as a draft). Default: all the builder offers.",
        "expireEmbedURL": "Extension. The URL of this token stops working now (true).",
        "expireEmbedURL(requestTokenEid)": "generateEmbedURL's `requestTokenEid`.",
    },
    "EmbedURL": {
        "url": "The builder's URL: frame it; it carries its secret, so keep it to the user.",
        "requestTokenEid": "The token's id (for expireEmbedURL).",
    },
}
