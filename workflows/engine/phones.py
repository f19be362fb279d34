"""Phone numbers of the regions a webform takes (+1, +44, +52): their names, country codes,
national prefixes and number lengths, and the one rule that reads a number (``national_number``),
which the page's script applies too (workflows/static/workflows/form.js)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import phonenumbers

from core.engine.field_types import PHONE_REGIONS
from workflows.engine.messages import gettext_noop

_PHONE_CHARACTERS = re.compile(r"[\s().\-/]")

REGION_NAMES: Mapping[str, str] = {
    "US": gettext_noop("United States"),
    "CA": gettext_noop("Canada"),
    "GB": gettext_noop("United Kingdom"),
    "MX": gettext_noop("Mexico"),
    "AG": gettext_noop("Antigua and Barbuda"),
    "AI": gettext_noop("Anguilla"),
    "AS": gettext_noop("American Samoa"),
    "BB": gettext_noop("Barbados"),
    "BM": gettext_noop("Bermuda"),
    "BS": gettext_noop("Bahamas"),
    "DM": gettext_noop("Dominica"),
    "DO": gettext_noop("Dominican Republic"),
    "GD": gettext_noop("Grenada"),
    "GG": gettext_noop("Guernsey"),
    "GU": gettext_noop("Guam"),
    "IM": gettext_noop("Isle of Man"),
    "JE": gettext_noop("Jersey"),
    "JM": gettext_noop("Jamaica"),
    "KN": gettext_noop("Saint Kitts and Nevis"),
    "KY": gettext_noop("Cayman Islands"),
    "LC": gettext_noop("Saint Lucia"),
    "MP": gettext_noop("Northern Mariana Islands"),
    "MS": gettext_noop("Montserrat"),
    "PR": gettext_noop("Puerto Rico"),
    "SX": gettext_noop("Sint Maarten"),
    "TC": gettext_noop("Turks and Caicos Islands"),
    "TT": gettext_noop("Trinidad and Tobago"),
    "VC": gettext_noop("Saint Vincent and the Grenadines"),
    "VG": gettext_noop("British Virgin Islands"),
    "VI": gettext_noop("U.S. Virgin Islands"),
}


def _phone_region_info(region: str) -> dict[str, Any]:
    metadata = phonenumbers.PhoneMetadata.metadata_for_region(region)
    assert metadata is not None, region
    assert metadata.general_desc is not None, region
    lengths = sorted(length for length in metadata.general_desc.possible_length if length > 0)
    return {
        "name": REGION_NAMES.get(region, region),
        "code": metadata.country_code,
        "prefix": metadata.national_prefix or "",
        "lengths": lengths,
    }


# US, CA, GB and MX first (the spec's named regions), then the others by name.
PHONE_REGION_ORDER: tuple[str, ...] = ("US", "CA", "GB", "MX") + tuple(
    sorted(PHONE_REGIONS - {"US", "CA", "GB", "MX"}, key=lambda r: REGION_NAMES.get(r, r))
)
PHONE_REGION_INFO: Mapping[str, Mapping[str, Any]] = {
    region: _phone_region_info(region) for region in PHONE_REGION_ORDER
}


def national_number(num: str, region: str) -> str | None:
    """The national significant number of ``num`` in ``region``, or None if it cannot be one.

    The rule the page's script applies too: drop spaces, dots, dashes, slashes and brackets; a
    leading "+" must be followed by the region's country code, which is dropped; otherwise a
    leading national prefix ("1" in North America, "0" in the UK; no national number starts
    with it) is dropped. The number must then be digits of one of the region's lengths.
    """
    info = PHONE_REGION_INFO[region]
    digits = _PHONE_CHARACTERS.sub("", num)
    code, prefix, lengths = str(info["code"]), info["prefix"], info["lengths"]
    if digits.startswith("+"):
        if not digits.startswith("+" + code):
            return None
        digits = digits[1 + len(code) :]
    elif prefix and digits.startswith(prefix):
        digits = digits[len(prefix) :]
    if not digits.isascii() or not digits.isdigit() or len(digits) not in lengths:
        return None
    return digits
