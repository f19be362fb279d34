"""The number conventions of the page being served: its language's decimal and grouping
separators (Django's locale formats), for the rules (workflows.engine.numbers) on the server and
in the browser (the page's wf-rules), and for writing numbers back (an input after Back, the
answers page); and where that language puts "$" and "%" (CLDR's standard currency and percent
patterns, which Django does not carry)."""

from __future__ import annotations

from django.utils.formats import get_format
from django.utils.translation import get_language

from workflows.engine.numbers import NumberFormat

# The page's languages (settings.LANGUAGES) that do not write "$1,234.50" and "15%".
_MONEY = {
    **dict.fromkeys(("de", "es", "fr", "it", "pl", "sv", "uk", "ar", "he"), "{}\u00a0$"),
    **dict.fromkeys(("pt", "nl"), "$\u00a0{}"),
}
_PERCENT = {**dict.fromkeys(("de", "es", "fr", "sv"), "{}\u00a0%"), "tr": "%{}"}


def page_number_format() -> NumberFormat:
    """How the active language writes numbers ("15,5" in Spanish, "15.5" in English)."""
    language = (get_language() or "en").split("-")[0]
    return NumberFormat.of(
        str(get_format("DECIMAL_SEPARATOR")),
        str(get_format("THOUSAND_SEPARATOR")),
        money=_MONEY.get(language, "${}"),
        percent=_PERCENT.get(language, "{}%"),
    )
