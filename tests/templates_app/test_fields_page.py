"""The admin's "Edit fields & style" page (templates_app/fields_page.py): every setting of a field
has an input of its own (no JSON), saves round-trip into the working version, the validator's
problems land on the row and input they concern, and a field keeps its name in the PDF."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django import forms
from django.test import Client
from django.urls import reverse

from templates_app import services
from templates_app.field_forms import part_layout
from templates_app.models import PdfTemplate


def fields_url(template: PdfTemplate, page: int = 0, part: int | None = None) -> str:
    url = reverse("admin:templates_app_pdftemplate_fields", args=[template.pk]) + f"?page={page}"
    return url if part is None else f"{url}&part={part}"


class Page:
    """The fields page as a browser would submit it: every input with its shown value."""

    def __init__(
        self, client: Client, template: PdfTemplate, page: int = 0, part: int | None = None
    ) -> None:
        self.client, self.url = client, fields_url(template, page, part)
        response = client.get(self.url)
        assert response.status_code == 200
        self.html = response.content.decode()
        formset = response.context["formset"]
        style_form = response.context["style_form"]
        self.data: dict[str, str] = {
            "fields-TOTAL_FORMS": str(formset.total_form_count()),
            "fields-INITIAL_FORMS": str(formset.initial_form_count()),
        }
        for name, field in style_form.fields.items():
            self._put(f"style-{name}", field, style_form.initial.get(name, field.initial))
        self.index: dict[str, int] = {}
        for index, form in enumerate(formset.forms):
            for name, field in form.fields.items():
                self._put(f"fields-{index}-{name}", field, form.initial.get(name, field.initial))
            if form.initial:
                self.index[form.initial["id"]] = index
        self.new_row = formset.total_form_count() - 1

    def _put(self, key: str, field: forms.Field, value: Any) -> None:
        if isinstance(field, forms.BooleanField):
            if value:
                self.data[key] = "on"
        else:
            self.data[key] = "" if value is None else str(value)

    def set(self, field_id: str, **values: str | bool) -> None:
        for name, value in values.items():
            key = f"fields-{self.index[field_id]}-{name}"
            if value is True:
                self.data[key] = "on"
            elif value is False:
                self.data.pop(key, None)
            else:
                self.data[key] = value

    def post(self):
        return self.client.post(self.url, self.data)


def by_id(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in spec["fields"]}


def spec_of(template: PdfTemplate) -> dict[str, Any]:
    return services.working_version(template).spec


def field_of(template: PdfTemplate, field_id: str) -> dict[str, Any]:
    return next(f for f in spec_of(template)["fields"] if f["id"] == field_id)


@pytest.mark.parametrize("fixture", ["demo_template", "fw9_template"])
def test_saving_the_page_unchanged_changes_nothing(
    request: pytest.FixtureRequest, member_client: Client, fixture: str
) -> None:
    template = request.getfixturevalue(fixture)
    before = copy.deepcopy(spec_of(template))

    response = Page(member_client, template).post()

    assert response.status_code == 302, response.context["formset"].errors
    after = spec_of(template)
    # The page's fields are saved after the other pages' ones: compare them by id.
    assert by_id(after) == by_id(before)
    assert {**after, "fields": []} == {**before, "fields": []}


def test_the_page_has_an_input_per_setting_and_no_json(
    member_client: Client, demo_template: PdfTemplate
) -> None:
    page = Page(member_client, demo_template)
    colour = page.index["colour"]

    assert "extra" not in page.html
    assert "JSON" not in page.html
    assert f'<textarea name="fields-{colour}-options"' in page.html
    assert page.data[f"fields-{colour}-options"] == "red\ngreen\nblue"
    assert page.data[f"fields-{page.index['account']}-boxes"] == "9"
    assert page.data[f"fields-{page.index['nameParts']}-parts"] == "on"
    assert page.data[f"fields-{page.index['birthDate']}-format_pattern"] == "MMMM D, YYYY"
    # Existing rows carry their id hidden; the new row offers an input for it.
    assert f'<input type="hidden" name="fields-{colour}-id" value="colour"' in page.html
    assert f'<input type="text" name="fields-{page.new_row}-id"' in page.html


def test_text_format_and_rotation_settings_round_trip(
    member_client: Client, demo_template: PdfTemplate
) -> None:
    page = Page(member_client, demo_template)
    page.set("title", maxLength="20", rotation="90", autoSize=True)
    page.set("comments", autoSize=False)
    page.set(
        "rate", format_decimals="2", format_thousandsSeparator=" ", format_decimalSeparator=","
    )
    page.set("birthDate", format_pattern="DD.MM.YYYY")
    page.set("amount", format_currencySymbol="€")

    response = page.post()

    assert response.status_code == 302, response.context["formset"].errors
    title = field_of(demo_template, "title")
    assert (title["maxLength"], title["rotation"], title["autoSize"]) == (20, 90, True)
    assert "autoSize" not in field_of(demo_template, "comments")
    assert field_of(demo_template, "rate")["format"] == {
        "decimals": 2,
        "thousandsSeparator": " ",
        "decimalSeparator": ",",
    }
    assert field_of(demo_template, "birthDate")["format"] == {"pattern": "DD.MM.YYYY"}
    assert field_of(demo_template, "amount")["format"] == {"currencySymbol": "€"}
    # Shown again as saved.
    again = Page(member_client, demo_template)
    assert again.data[f"fields-{again.index['title']}-rotation"] == "90"
    assert again.data[f"fields-{again.index['rate']}-format_thousandsSeparator"] == " "


def test_radio_options_are_renamed_in_place_or_laid_out_anew(
    member_client: Client, demo_template: PdfTemplate
) -> None:
    before = field_of(demo_template, "colour")
    page = Page(member_client, demo_template)
    page.set("colour", options="crimson\nlime\n\nnavy\n")

    assert page.post().status_code == 302
    renamed = field_of(demo_template, "colour")
    assert [o["id"] for o in renamed["options"]] == ["crimson", "lime", "navy"]
    assert [o["rect"] for o in renamed["options"]] == [o["rect"] for o in before["options"]]

    page = Page(member_client, demo_template)
    page.set("colour", options="yes\nno")
    assert page.post().status_code == 302
    options = field_of(demo_template, "colour")["options"]
    rect = before["rect"]
    assert [o["id"] for o in options] == ["yes", "no"]
    # A new number of options: the field's box split in two, side by side (it is wide).
    assert [o["rect"]["x"] for o in options] == [rect["x"], rect["x"] + rect["width"] / 2]
    assert all(o["rect"]["width"] == rect["width"] / 2 for o in options)


def test_a_new_number_of_boxes_splits_the_field_and_the_length_follows(
    member_client: Client, demo_template: PdfTemplate
) -> None:
    page = Page(member_client, demo_template)
    page.set("account", boxes="6")
    page.set("notes", boxes="4")

    assert page.post().status_code == 302, "not saved"
    account = field_of(demo_template, "account")
    assert account["maxLength"] == 6
    assert [b["x"] for b in account["boxes"]] == [54.0 + i * 27 for i in range(6)]
    notes = field_of(demo_template, "notes")
    # Lines run top to bottom: the first is the highest.
    tops = [b["y"] + b["height"] for b in notes["boxes"]]
    assert tops == sorted(tops, reverse=True)
    assert len(tops) == 4
    assert tops[0] == notes["rect"]["y"] + notes["rect"]["height"]


def test_separate_part_boxes_are_laid_out_by_the_type_and_can_be_removed(
    member_client: Client, demo_template: PdfTemplate
) -> None:
    kept = field_of(demo_template, "nameParts")["parts"]
    page = Page(member_client, demo_template)
    page.set("name", parts=True)
    page.set("nameParts", parts=False)
    page.set("phone", alias="telephone")  # an unrelated edit: the demo's other parts stay

    assert page.post().status_code == 302
    parts = field_of(demo_template, "name")["parts"]
    rect = field_of(demo_template, "name")["rect"]
    # PostgreSQL's jsonb keeps no key order: the parts are compared by name.
    assert sorted(parts) == ["firstName", "lastName", "mi"]
    # Weights 4 : 1 : 4 of the box's width, left to right.
    widths = {name: round(p["width"] * 9 / rect["width"], 2) for name, p in parts.items()}
    assert widths == {"firstName": 4, "mi": 1, "lastName": 4}
    assert parts["firstName"]["x"] == rect["x"]
    assert parts["firstName"]["x"] < parts["mi"]["x"] < parts["lastName"]["x"]
    assert "parts" not in field_of(demo_template, "nameParts")
    assert kept  # the demo had them

    page = Page(member_client, demo_template)
    html = page.html
    assert "Parts with a box: First name, Middle initial, Last name" in html


def test_a_bad_value_is_shown_on_its_row_and_input_and_nothing_is_saved(
    member_client: Client, demo_template: PdfTemplate
) -> None:
    before = copy.deepcopy(spec_of(demo_template))
    page = Page(member_client, demo_template)
    page.set("rate", format_decimals="11")
    page.set("account", maxLength="5")  # 9 boxes
    page.set("title", alias="still not saved")

    response = page.post()

    assert response.status_code == 200
    assert spec_of(demo_template) == before
    forms_ = response.context["formset"].forms
    assert forms_[page.index["rate"]].errors == {
        "format_decimals": ["Must be an integer from 0 to 10."]
    }
    assert forms_[page.index["account"]].errors == {
        "boxes": ["Box count mismatch: 9 boxes for maxLength 5."]
    }
    others = [
        f.errors
        for i, f in enumerate(forms_)
        if i not in (page.index["rate"], page.index["account"])
    ]
    assert not any(others)
    # The rows' "More settings" open on the error.
    rows = {row.form["id"].value(): row for row in response.context["rows"]}
    assert rows["rate"].more_open
    assert rows["account"].more_open
    assert "Not saved: correct the errors below." in response.content.decode()


def test_an_edited_field_keeps_its_name_in_the_pdf(
    member_client: Client, fw9_template: PdfTemplate
) -> None:
    name = field_of(fw9_template, "f1")["name"]
    page = Page(member_client, fw9_template)
    page.set("f1", alias="legalName", maxLength="40", type="longText")

    assert page.post().status_code == 302
    field = field_of(fw9_template, "f1")
    assert (field["alias"], field["type"], field["maxLength"]) == ("legalName", "longText", 40)
    assert field["name"] == name == "topmostSubform[0].Page1[0].f1_1[0]"


def test_the_blank_row_adds_a_field_and_is_skipped_when_left_blank(
    member_client: Client, demo_template: PdfTemplate
) -> None:
    page = Page(member_client, demo_template)
    new = page.new_row
    page.data.update(
        {
            f"fields-{new}-id": "extra1",
            f"fields-{new}-type": "number",
            f"fields-{new}-x": "300",
            f"fields-{new}-y": "100",
            f"fields-{new}-width": "80",
            f"fields-{new}-height": "18",
            f"fields-{new}-format_decimals": "1",
        }
    )

    assert page.post().status_code == 302
    added = field_of(demo_template, "extra1")
    assert (added["alias"], added["type"], added["format"]) == ("extra1", "number", {"decimals": 1})


def test_part_boxes_follow_the_page_as_it_is_seen() -> None:
    rect = {"x": 100.0, "y": 200.0, "width": 90.0, "height": 30.0}

    upright = part_layout("usAddress", rect)
    # Rows top to bottom: the first row is the highest; a row's parts left to right by weight.
    assert upright["street1"] == {"x": 100.0, "y": 220.0, "width": 90.0, "height": 10.0}
    assert (upright["city"]["x"], upright["city"]["y"]) == (100.0, 200.0)
    assert upright["country"]["x"] + upright["country"]["width"] == 190.0

    # On a page turned 90° clockwise, left to right as seen runs up the page's y axis, and
    # top to bottom runs along x.
    turned = part_layout("fullName", {"x": 100.0, "y": 200.0, "width": 30.0, "height": 90.0}, 90)
    assert [p["y"] for p in turned.values()] == [200.0, 240.0, 250.0]
    assert all(p["x"] == 100.0 and p["width"] == 30.0 for p in turned.values())


@pytest.fixture
def crowded(organization) -> PdfTemplate:
    """One letter page with 70 short text fields, f0 to f69 (a real form's busy page)."""
    from tests.pdfcheck import blank_pdf

    template = services.template_create_from_pdf(
        organization=organization, title="Crowded", pdf=blank_pdf()
    )
    spec = spec_of(template)
    spec["fields"] = [
        {
            "id": f"f{n}",
            "alias": f"line{n}",
            "type": "shortText",
            "page": 0,
            "rect": {"x": 20 + 290 * (n % 2), "y": 20 + 10 * (n // 2), "width": 280, "height": 9},
        }
        for n in range(70)
    ]
    services.template_update_working(template=template, spec=spec)
    return template


def test_a_page_with_many_fields_is_edited_thirty_at_a_time(
    member_client: Client, crowded: PdfTemplate
) -> None:
    first = Page(member_client, crowded)
    assert sorted(first.index) == sorted(f"f{n}" for n in range(30))
    assert "1–30 of 70" in first.html
    assert "part=2" in first.html

    last = Page(member_client, crowded, part=2)
    assert sorted(last.index) == sorted(f"f{n}" for n in range(60, 70))
    last.set("f65", alias="renamed")
    last.set("f61", DELETE=True)
    assert len(last.data) < 1000  # Django's limit of inputs per request
    response = last.post()

    assert response.status_code == 302
    assert response["Location"].endswith("?page=0&part=2")
    fields = by_id(spec_of(crowded))
    assert len(fields) == 69
    assert "f61" not in fields
    assert fields["f65"]["alias"] == "renamed"
    assert fields["f0"]["alias"] == "line0"  # the other parts as they were
    assert fields["f30"]["alias"] == "line30"


def test_every_part_of_a_busy_real_page_saves(member_client: Client, organization) -> None:
    """The CRA form's page 5 has 78 fields: saved unchanged, part by part, nothing moves."""
    from tests.fixtures import PDFS

    template = services.template_create_from_pdf(
        organization=organization,
        title="CRA",
        pdf=(PDFS / "ca-cra-b300-cannabis-duty.pdf").read_bytes(),
    )
    before = spec_of(template)
    on_page = [f for f in before["fields"] if f.get("page", 0) == 4]
    assert len(on_page) == 78
    for part in range(3):
        page = Page(member_client, template, page=4, part=part)
        assert len(page.data) < 1000
        assert page.post().status_code == 302

    assert by_id(spec_of(template)) == by_id(before)
