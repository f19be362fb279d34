"""The words the signing page's scripts show, translated in the active language.

The scripts (esign/static/esign/*.js) read them from the json_script "page-strings" with
``t(key, values)``; "{name}" marks a value the script puts in. Keeping them here puts them in
Django's catalogue (esign/locale) beside the templates' words, translated once.
"""

from __future__ import annotations

from django.utils.translation import gettext as _


def error_messages() -> dict[str, str]:
    """What the signer reads for each errorType of a link that cannot be used."""
    return {
        "tokenExpired": _("This signing link has expired."),
        "tokenInvalid": _("This signing link is not valid."),
        "notFound": _("This signature request was cancelled."),
        # Not an errorType: notFound with reason signerForwarded (esign.signing.forwarding).
        "forwarded": _("This signature request was handed to someone else to sign."),
    }


def signing_strings() -> dict[str, str]:
    """Every string of sign.js and adopt.js, keyed as the scripts name them."""
    errors = {f"error.{key}": text for key, text in error_messages().items()}
    return errors | {
        # The kinds of field, as the guide and the list name them.
        "type.signature": _("Signature"),
        "type.initial": _("Initials"),
        "type.signatureDate": _("Date signed"),
        "type.text": _("Text"),
        "type.fullName": _("Full name"),
        "type.email": _("Email"),
        "type.date": _("Date"),
        "type.checkbox": _("Checkbox"),
        "placeholder.signature": _("Sign here"),
        "placeholder.initial": _("Initial"),
        "problem.email": _("Enter an email address, like name@example.com."),
        "problem.date": _("Enter a date as YYYY-MM-DD."),
        "box.done": _("{label}, field {number} of {total}, completed"),
        "box.todo": _("{label}, field {number} of {total}, to do"),
        "list.page": _("page {number}"),
        "list.done": _(", completed"),
        "list.todo": _(", to do"),
        "where": _("page {number} of “{title}”"),
        "page.label": _("{title}, page {number} of {total}"),
        "on": _(" on {where}"),
        "adopt.signatureHelp": _(
            "Adopt your signature once; it goes in each of your signature fields."
        ),
        "adopt.initialsHelp": _(
            "Adopt your initials once; they go in each of your initials fields."
        ),
        "adopt.signature": _("Adopt signature"),
        "adopt.initials": _("Adopt initials"),
        "adopt.change": _("Change"),
        "adopt.drawnAlt": _("Your drawn signature"),
        "dateHelp": _("Filled in with the date you finish: {date}."),
        "checkboxLabel": _(" Check this box (optional)"),
        "valueLabel": _("Your {label}"),
        "prefilled.help": _("Filled in by the sender. You may change it before you sign."),
        "progress": _("Field {number} of {total}"),
        "noFields": _("No fields"),
        "allDone": _("All {total} fields completed. Select Finish to sign."),
        "count": _("{done} of {total} completed"),
        "announce": _("Field {number} of {total}: {label} on {where}."),
        "announceAllDone": _("All {total} fields are completed. Select Finish to sign."),
        "fillFirst": _("Fill in this field first."),
        "finish": _("Finish"),
        "signing": _("Signing…"),
        "copy.download": _("Download “{title}” (PDF)"),
        "copy.sealed": _(
            "The signed documents, sealed by the service: keep them for your records."
        ),
        "copy.notSealed": _(
            "The documents with every signature given so far. Once everybody has signed and "
            "the documents are sealed, this link gives you the sealed copies."
        ),
        "copy.notSealedEmailed": _(
            "The documents with every signature given so far. Once everybody has signed and "
            "the documents are sealed, this link gives you the sealed copies, and they are "
            "emailed to you."
        ),
        "linkRefused": _("This signing link cannot be used"),
        "takingBack": _("Taking you back…"),
        "completeOne": _("Complete this field to finish."),
        "completeMany": _("Complete this field to finish ({left} fields left)."),
        "unreachable": _(
            "The server could not be reached. Check your connection and select Finish again."
        ),
        "done": _("Done"),
        "doneNext": _(
            "You signed. The next signer is asked to sign now. Download your copy below."
        ),
        "doneText": _("You signed. Download your copy below."),
        "closed": _("You cannot sign now"),
        "closedText": _("This request is no longer open."),
        "failed": _("Signing failed (error {status}). Try again in a moment."),
        "decline.why": _("Tell the sender why you decline."),
        "decline.unreachable": _("The server could not be reached. Try again."),
        "decline.done": _("You declined to sign"),
        "decline.doneText": _("The sender has been told. You can close this page."),
        "decline.failed": _("Declining failed (error {status})."),
        "waiting.signed": _("You have signed these documents. There is nothing more to do."),
        "waiting.declined": _(
            "This request was declined. Nobody can sign these documents any more."
        ),
        "waiting.completed": _("Everybody has signed these documents."),
        "waiting.one": _(
            "{names} must sign first. You can read the documents now; you will be able to sign "
            "once they have signed."
        ),
        "waiting.many": _(
            "{names} must sign first. You can read the documents now; you will be able to sign "
            "once they all have signed."
        ),
        "waiting.nothing": _("There is nothing for you to sign right now."),
        # The "Adopt your signature" dialog (adopt.js).
        "dialog.signature": _("Adopt your signature"),
        "dialog.initials": _("Adopt your initials"),
        "dialog.legalInitials": _(
            "By selecting “Adopt and sign”, I agree that this signature and these initials are "
            "the electronic representation of my signature and initials, for every use on these "
            "documents."
        ),
        "dialog.typeInitials": _("Type your initials."),
        "dialog.drawFirst": _("Draw your signature in the box first, or choose Type."),
        "dialog.typeName": _("Type your name to sign."),
        # The files to attach (attachments.js).
        "attach.attached": _("Attached: {name} ({size})"),
        "attach.nothing": _("Nothing attached yet."),
        "attach.uploading": _("Sending the file…"),
        "attach.done": _("“{label}” attached."),
        "attach.removed": _("The file was removed."),
        "attach.tooLarge": _("The file is larger than the limit of {size}."),
        "attach.missing": _("Attach “{label}” to finish."),
        "attach.wait": _("Wait until the file is sent."),
        "attach.failed": _("The file could not be attached (error {status}). Try again."),
        "attach.unreachable": _("The server could not be reached. Try again."),
        # Forwarding one's turn to someone else (forward.js, esign.signing.forwarding).
        "forward.name": _("Enter the name of the person who will sign."),
        "forward.email": _("Enter their email address, like name@example.com."),
        "forward.unreachable": _("The server could not be reached. Try again."),
        "forward.failed": _("Forwarding failed (error {status})."),
        "forward.done": _("Forwarded"),
        "forward.doneText": _(
            "{name} ({email}) is asked to sign in your place and gets an email with their own "
            "link. Your link no longer works. You can close this page."
        ),
    }
