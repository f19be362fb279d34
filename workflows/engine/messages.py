"""The messages of the webform rules, each with a stable code: the engine says which (a
``Message``: code and values), and the edge says it in the reader's language.

The texts are English and marked with ``pgettext`` in the context "webform rule" (this module's
own no-op, the engine imports no Django) so that ``makemessages`` finds them, apart from other
apps' entries of the same English text (Django REST framework's "This field is required.");
``Message.text(translate)`` fills a translated text, ``str(message)`` the English one the API
answers with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

RULE_CONTEXT = "webform rule"


def pgettext(context: str, text: str) -> str:
    """Marks ``text`` for the translation catalogue in ``context`` (always RULE_CONTEXT, written
    out: makemessages reads the literal); translated where it is shown, in that context."""
    return text


# Every message a check can give. ``{min}``, ``{max}`` and ``{region}`` are filled in.
MESSAGES: Mapping[str, str] = {
    "required": pgettext("webform rule", "This field is required."),
    "checkboxRequired": pgettext("webform rule", "Check this box to continue."),
    "text": pgettext("webform rule", "Enter text."),
    "controlCharacters": pgettext(
        "webform rule", "Remove the control characters (such as NUL) from this text."
    ),
    "tooLong": pgettext("webform rule", "Use at most {max} characters."),
    "tooShort": pgettext("webform rule", "Use at least {min} characters."),
    "email": pgettext("webform rule", "Enter an email address, like name@example.com."),
    "ssn": pgettext(
        "webform rule", "Enter the 9 digits of a social security number, like 123-45-6789."
    ),
    "ssnInvalid": pgettext("webform rule", "This is not a valid social security number."),
    "ein": pgettext(
        "webform rule", "Enter the 9 digits of an employer identification number, like 12-3456789."
    ),
    "einInvalid": pgettext("webform rule", "This is not a valid employer identification number."),
    "date": pgettext("webform rule", "Enter a date as YYYY-MM-DD."),
    "dateInvalid": pgettext("webform rule", "This date does not exist."),
    "number": pgettext("webform rule", "Enter a number, like 1234.56."),
    "integer": pgettext("webform rule", "Enter a whole number."),
    "percent": pgettext("webform rule", "Enter a number from 0 to 100."),
    "numberTooLarge": pgettext("webform rule", "Enter a number below 1,000,000,000,000,000."),
    "min": pgettext("webform rule", "Enter a number of at least {min}."),
    "max": pgettext("webform rule", "Enter a number of at most {max}."),
    "option": pgettext("webform rule", "Choose one of the options."),
    "checkbox": pgettext("webform rule", "Must be true or false."),
    "image": pgettext("webform rule", "Upload a PNG, JPEG or GIF image of at most 10 MB."),
    "imageDataUrl": pgettext(
        "webform rule", "A data: URL may hold at most 72 KB of image; give an http(s) URL instead."
    ),
    "imageUrl": pgettext(
        "webform rule", "Give an http(s) URL or a data: URL of a PNG, JPEG or GIF image."
    ),
    "imageUpload": pgettext(
        "webform rule", "Upload the image as a file; a link to an image is not accepted here."
    ),
    "imageBytes": pgettext(
        "webform rule",
        "This file is not a readable image of the type it claims (PNG, JPEG or GIF).",
    ),
    "imageTooLarge": pgettext(
        "webform rule", "This image has too many pixels to be used here; choose a smaller one."
    ),
    "imageNotProcessed": pgettext(
        "webform rule", "This image could not be processed; choose a smaller one."
    ),
    "imageBusy": pgettext(
        "webform rule",
        "Too many images are being processed right now; send the page again in a moment.",
    ),
    "name": pgettext("webform rule", "Enter a first name and a last name."),
    "nameObject": pgettext("webform rule", "Must be an object with firstName, mi and lastName."),
    "middleInitial": pgettext("webform rule", "Use at most 5 characters for the middle initial."),
    "part": pgettext("webform rule", "Use at most 200 characters in each part."),
    "address": pgettext("webform rule", "Enter the street, city, state and ZIP code."),
    "addressObject": pgettext(
        "webform rule", "Must be an object with street1, street2, city, state and zip."
    ),
    "state": pgettext("webform rule", "Use the two-letter code of a US state, like CA."),
    "zip": pgettext("webform rule", "Enter a 5-digit ZIP code, or ZIP+4 like 94105-1234."),
    "phoneRegion": pgettext(
        "webform rule", "Choose a region of the +1, +44 or +52 codes (US, CA, GB, MX...)."
    ),
    "phone": pgettext("webform rule", "Enter a complete phone number for {region}."),
    "phoneObject": pgettext(
        "webform rule",
        "Must be a phone number string or an object with num, region and baseRegion.",
    ),
    "groupMin": pgettext("webform rule", "Entries needed: at least {min}."),
    "groupMax": pgettext("webform rule", "Entries allowed: at most {max}."),
    "groupEntries": pgettext(
        "webform rule", "Must be a list of entries, each an object keyed by field key."
    ),
}


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Message:
    """A message of the rules: its code (a key of MESSAGES) and the values it is filled with."""

    code: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def text(self, translate: Callable[[str], str] = _same) -> str:
        """The message in the language of ``translate``, its text values (a region's name)
        translated too."""
        values = {k: translate(v) if isinstance(v, str) else v for k, v in self.values.items()}
        return translate(MESSAGES[self.code]).format(**values)

    def __str__(self) -> str:
        return self.text()


class FieldInvalid(ValueError):
    """A value that breaks its field's rule: ``message`` says which, ``str()`` in English."""

    def __init__(self, key: str, **values: Any) -> None:
        self.key = key
        self.message = Message(key, values)
        super().__init__(str(self.message))
