"""Each type's value formatted by its rules (engine only, no PDF)."""

import re
from datetime import date
from decimal import Decimal

import pytest

from core.engine.template_spec import FieldSpec, Rect
from fill.engine.formatting import PageNumbers, format_date, one_line
from fill.engine.values import normalize_value


def field(kind: str, **extra) -> FieldSpec:
    return FieldSpec(id="f", alias="f", type=kind, page=0, rect=Rect(0, 0, 100, 20), **extra)


def shown(kind: str, value, **extra) -> str:
    spec = field(kind, **extra)
    return one_line(spec, normalize_value(spec, value))


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("ssn", "123456789", "123-45-6789"),
        ("ssn", "123-45-6789", "123-45-6789"),
        ("ein", "123456789", "12-3456789"),
        ("date", "2024-03-05", "03/05/2024"),
        ("number", 1234567.125, "1,234,567.125"),
        ("number", -0.5, "-0.5"),
        ("dollar", 1234.5, "$1,234.50"),
        ("dollar", -3, "-$3.00"),
        ("integer", 12.5, "13"),
        ("percent", 12.5, "12.5%"),
        ("percent", 100, "100%"),
        ("fullName", {"firstName": "Jane", "mi": "Q", "lastName": "Doe"}, "Jane Q Doe"),
        ("fullName", {"firstName": "Jane", "lastName": "Doe"}, "Jane Doe"),
        (
            "usAddress",
            {
                "street1": "1 Main St",
                "street2": "Apt 4",
                "city": "Austin",
                "state": "TX",
                "zip": "78701",
                "country": "US",
            },
            "1 Main St, Austin, TX 78701",
        ),
    ],
)
def test_values_are_formatted_by_their_type(kind, value, expected) -> None:
    assert shown(kind, value) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("MM/DD/YYYY", "03/05/2024"),
        ("DD/MM/YYYY", "05/03/2024"),
        ("YYYY-MM-DD", "2024-03-05"),
        ("MMMM D, YYYY", "March 5, 2024"),
        ("MMM D, YY", "Mar 5, 24"),
        ("dddd, D MMMM YYYY", "Tuesday, 5 March 2024"),
        ("D.M.YYYY", "5.3.2024"),
    ],
)
def test_date_patterns(pattern: str, expected: str) -> None:
    assert format_date(date(2024, 3, 5), pattern) == expected
    assert shown("date", "2024-03-05", format={"pattern": pattern}) == expected


def test_number_formatting_options() -> None:
    european = {
        "decimals": 2,
        "thousandsSeparator": ".",
        "decimalSeparator": ",",
        "currencySymbol": "€",
    }

    assert shown("dollar", 1234567.891, format=european) == "€1.234.567,89"
    assert shown("number", 2.0, format={"decimals": 3}) == "2.000"
    assert shown("percent", 33.3333, format={"decimals": 1}) == "33.3%"
    assert shown("number", "1,500") == "1,500"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("5551234567", "(555) 123-4567"),
        ({"num": "5551234567"}, "(555) 123-4567"),
        ({"num": "5551234567", "region": "US", "baseRegion": "US"}, "(555) 123-4567"),
        ({"num": "5551234567", "region": "US", "baseRegion": "MX"}, "+1 (555) 123-4567"),
        ({"num": "4165551234", "region": "CA", "baseRegion": "CA"}, "(416) 555-1234"),
        ({"num": "4165551234", "region": "CA", "baseRegion": "US"}, "+1 (416) 555-1234"),
        ({"num": "5512345678", "region": "MX", "baseRegion": "MX"}, "551 234 5678"),
        ({"num": "5512345678", "region": "MX", "baseRegion": "US"}, "+52 551 234 5678"),
        ({"num": "02079460018", "region": "GB", "baseRegion": "GB"}, "020 7946 0018"),
        ({"num": "02079460018", "region": "GB", "baseRegion": "US"}, "+44 20 7946 0018"),
        ({"num": "7877654321", "region": "PR", "baseRegion": "US"}, "+1 (787) 765-4321"),
    ],
)
def test_phone_shapes(value, expected: str) -> None:
    assert shown("phone", value) == expected


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        ("ssn", "12345", "9 digits"),
        ("ein", 12, "9 digits"),
        ("date", "03/05/2024", "YYYY-MM-DD"),
        ("date", "2024-02-30", "real date"),
        ("percent", 101, "0 to 100"),
        ("number", "twelve", "number"),
        ("dollar", True, "number"),
        ("checkbox", "yes", "true or false"),
        ("fullName", "Jane Doe", "object"),
        ("phone", {"num": "12", "region": "US"}, "possible"),
        ("phone", {"num": "5551234567", "region": "FR"}, "region"),
        ("imageFile", "ftp://x/y.png", "http(s) URL"),
        ("shortText", {"a": 1}, "string"),
    ],
)
def test_wrong_shapes_are_refused_with_a_clear_message(kind: str, value, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        normalize_value(field(kind), value)


def test_page_variables_are_replaced_several_per_string() -> None:
    numbers = PageNumbers(page_number=3, total_pages=7, repeat_number=2, repeat_total=4)

    assert numbers.substitute("{{pageNumber}}/{{totalPages}} ({{ pageIndex }})") == "3/7 (2)"
    assert (
        numbers.substitute("{{pageRepeatNumber}} of {{pageRepeatTotal}}, {{pageRepeatIndex}}")
        == "2 of 4, 1"
    )
    assert numbers.substitute("{{unknown}}") == "{{unknown}}"


def test_integer_values_are_rounded_half_up() -> None:
    assert normalize_value(field("integer"), 2.5) == Decimal(3)
