"""The messages of the webform rules, each with a stable code: the engine says which (a
``Message``: code and values), and the edge says it in the reader's language.

The texts are English and marked with ``gettext_noop`` (this module's own, the engine imports no
Django) so that ``makemessages`` finds them; ``Message.text(translate)`` fills a translated text,
``str(message)`` the English one the API answers with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


def gettext_noop(text: str) -> str:
    """Marks ``text`` for the translation catalogue; translated where it is shown."""
    return text


# Every message a check can give. ``{min}``, ``{max}`` and ``{region}`` are filled in.
MESSAGES: Mapping[str, str] = {
    "required": gettext_noop("This field is required."),
    "checkboxRequired": gettext_noop("Check this box to continue."),
    "text": gettext_noop("Enter text."),
    "tooLong": gettext_noop("Use at most {max} characters."),
    "tooShort": gettext_noop("Use at least {min} characters."),
    "email": gettext_noop("Enter an email address, like name@example.com."),
    "ssn": gettext_noop("Enter the 9 digits of a social security number, like 123-45-6789."),
    "ssnInvalid": gettext_noop("This is not a valid social security number."),
    "ein": gettext_noop(
        "Enter the 9 digits of an employer identification number, like 12-3456789."
    ),
    "einInvalid": gettext_noop("This is not a valid employer identification number."),
    "date": gettext_noop("Enter a date as YYYY-MM-DD."),
    "dateInvalid": gettext_noop("This date does not exist."),
    "number": gettext_noop("Enter a number, like 1234.56."),
    "integer": gettext_noop("Enter a whole number."),
    "percent": gettext_noop("Enter a number from 0 to 100."),
    "numberTooLarge": gettext_noop("Enter a number below 1,000,000,000,000,000."),
    "min": gettext_noop("Enter a number of at least {min}."),
    "max": gettext_noop("Enter a number of at most {max}."),
    "option": gettext_noop("Choose one of the options."),
    "checkbox": gettext_noop("Must be true or false."),
    "image": gettext_noop("Upload a PNG, JPEG or GIF image of at most 10 MB."),
    "imageDataUrl": gettext_noop(
        "A data: URL may hold at most 72 KB of image; give an http(s) URL instead."
    ),
    "imageUrl": gettext_noop("Give an http(s) URL or a data: URL of a PNG, JPEG or GIF image."),
    "imageUpload": gettext_noop(
        "Upload the image as a file; a link to an image is not accepted here."
    ),
    "imageBytes": gettext_noop(
        "This file is not a readable image of the type it claims (PNG, JPEG or GIF)."
    ),
    "name": gettext_noop("Enter a first name and a last name."),
    "nameObject": gettext_noop("Must be an object with firstName, mi and lastName."),
    "middleInitial": gettext_noop("Use at most 5 characters for the middle initial."),
    "part": gettext_noop("Use at most 200 characters in each part."),
    "address": gettext_noop("Enter the street, city, state and ZIP code."),
    "addressObject": gettext_noop("Must be an object with street1, street2, city, state and zip."),
    "state": gettext_noop("Use the two-letter code of a US state, like CA."),
    "zip": gettext_noop("Enter a 5-digit ZIP code, or ZIP+4 like 94105-1234."),
    "phoneRegion": gettext_noop("Choose a region of the +1, +44 or +52 codes (US, CA, GB, MX...)."),
    "phone": gettext_noop("Enter a complete phone number for {region}."),
    "phoneObject": gettext_noop(
        "Must be a phone number string or an object with num, region and baseRegion."
    ),
    "groupMin": gettext_noop("Entries needed: at least {min}."),
    "groupMax": gettext_noop("Entries allowed: at most {max}."),
    "groupEntries": gettext_noop("Must be a list of entries, each an object keyed by field key."),
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
