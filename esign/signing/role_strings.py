"""The signing page's words for an approver and a viewer (esign.packets.roles), in the active
language: the same keys as esign.signing.page_strings, said of approving or reading, so that the
page's scripts (outcome.js, review.js) need no second set of keys."""

from __future__ import annotations

from django.utils.translation import gettext as _

from esign.models import Signer


def role_strings(signer: Signer) -> dict[str, str]:
    """The words that replace page_strings' for ``signer``'s role ({} for a signer or a
    witness)."""
    if signer.role == Signer.Role.APPROVER:
        return {
            "approve.done": _("You approved the documents"),
            "approve.doneText": _("The sender has been told. You can close this page."),
            "approving": _("Approving…"),
            "unreachable": _(
                "The server could not be reached. Check your connection and select Approve again."
            ),
            "failed": _("Approving failed (error {status}). Try again in a moment."),
            "decline.why": _("Say why you reject the documents."),
            "decline.done": _("You rejected the documents"),
            "decline.failed": _("Rejecting failed (error {status})."),
            "waiting.signed": _("You have approved these documents. There is nothing more to do."),
        }
    if signer.role == Signer.Role.VIEWER:
        return {
            "waiting.nothing": _(
                "These documents are shared with you to read. You have nothing to sign."
            ),
            "waiting.signed": _("Everybody has signed these documents. Your copy is below."),
        }
    return {}
