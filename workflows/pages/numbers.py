"""The number conventions of the page being served: its language's decimal and grouping
separators (Django's locale formats), for the rules (workflows.engine.numbers) on the server and
in the browser (the page's wf-rules)."""

from __future__ import annotations

from django.utils.formats import get_format

from workflows.engine.numbers import NumberFormat


def page_number_format() -> NumberFormat:
    """How the active language writes numbers ("15,5" in Spanish, "15.5" in English)."""
    return NumberFormat.of(
        str(get_format("DECIMAL_SEPARATOR")), str(get_format("THOUSAND_SEPARATOR"))
    )
