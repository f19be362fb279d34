"""Phone numbers of the regions a webform takes (+1, +44, +52): their names, country codes,
national prefixes and number lengths, and the one rule that reads a number (``national_number``),
which the page's script applies too (workflows/static/workflows/form.js)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import phonenumbers

from core.engine.field_types import PHONE_REGIONS
from workflows.engine.messages import pgettext

_PHONE_CHARACTERS = re.compile(r"[\s().\-/]")

REGION_NAMES: Mapping[str, str] = {
    "US": pgettext("webform rule", "United States"),
    "CA": pgettext("webform rule", "Canada"),
    "GB": pgettext("webform rule", "United Kingdom"),
    "MX": pgettext("webform rule", "Mexico"),
    "AG": pgettext("webform rule", "Antigua and Barbuda"),
    "AI": pgettext("webform rule", "Anguilla"),
    "AS": pgettext("webform rule", "American Samoa"),
    "BB": pgettext("webform rule", "Barbados"),
    "BM": pgettext("webform rule", "Bermuda"),
    "BS": pgettext("webform rule", "Bahamas"),
    "DM": pgettext("webform rule", "Dominica"),
    "DO": pgettext("webform rule", "Dominican Republic"),
    "GD": pgettext("webform rule", "Grenada"),
    "GG": pgettext("webform rule", "Guernsey"),
    "GU": pgettext("webform rule", "Guam"),
    "IM": pgettext("webform rule", "Isle of Man"),
    "JE": pgettext("webform rule", "Jersey"),
    "JM": pgettext("webform rule", "Jamaica"),
    "KN": pgettext("webform rule", "Saint Kitts and Nevis"),
    "KY": pgettext("webform rule", "Cayman Islands"),
    "LC": pgettext("webform rule", "Saint Lucia"),
    "MP": pgettext("webform rule", "Northern Mariana Islands"),
    "MS": pgettext("webform rule", "Montserrat"),
    "PR": pgettext("webform rule", "Puerto Rico"),
    "SX": pgettext("webform rule", "Sint Maarten"),
    "TC": pgettext("webform rule", "Turks and Caicos Islands"),
    "TT": pgettext("webform rule", "Trinidad and Tobago"),
    "VC": pgettext("webform rule", "Saint Vincent and the Grenadines"),
    "VG": pgettext("webform rule", "British Virgin Islands"),
    "VI": pgettext("webform rule", "U.S. Virgin Islands"),
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
