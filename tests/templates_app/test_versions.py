"""Working and published versions, selection by versionNumber, validation before save."""

import copy
from pathlib import Path

import pytest
from django.conf import settings

from core.errors import NotFound, ValidationFailed
from templates_app import services
from templates_app.models import PdfTemplate, TemplateVersion
from tests.fixtures import PDFS


def rename_first_field(template: PdfTemplate, alias: str) -> None:
    spec = copy.deepcopy(services.working_version(template).spec)
    spec["fields"][0]["alias"] = alias
    services.template_update_working(template=template, spec=spec)


def test_publishing_twice_gives_versions_one_and_two(fw9_template: PdfTemplate) -> None:
    first = services.template_publish(template=fw9_template)
    rename_first_field(fw9_template, "changed")
    second = services.template_publish(template=fw9_template)

    assert (first.number, second.number) == (1, 2)
    assert first.spec["fields"][0]["alias"] == "name"
    assert second.spec["fields"][0]["alias"] == "changed"
    assert fw9_template.versions.count() == 3


def test_editing_the_working_version_changes_no_published_version(
    fw9_template: PdfTemplate,
) -> None:
    services.template_publish(template=fw9_template)
    services.template_publish(template=fw9_template)
    before = {
        v.number: copy.deepcopy(v.spec) for v in fw9_template.versions.filter(number__isnull=False)
    }

    rename_first_field(fw9_template, "edited")

    after = {v.number: v.spec for v in fw9_template.versions.filter(number__isnull=False)}
    assert after == before
    assert services.working_version(fw9_template).spec["fields"][0]["alias"] == "edited"


def test_each_version_selector_returns_the_right_version(fw9_template: PdfTemplate) -> None:
    assert services.template_version_select(template=fw9_template, version_number=None).is_working
    v1 = services.template_publish(template=fw9_template)
    rename_first_field(fw9_template, "v2 alias")
    v2 = services.template_publish(template=fw9_template)
    rename_first_field(fw9_template, "draft alias")

    def alias(number):
        version = services.template_version_select(template=fw9_template, version_number=number)
        return version.spec["fields"][0]["alias"]

    assert services.template_version_select(template=fw9_template, version_number=1).pk == v1.pk
    assert services.template_version_select(template=fw9_template, version_number=2).pk == v2.pk
    assert alias(-1) == "draft alias"
    assert alias(-2) == "v2 alias"
    assert alias(None) == "v2 alias"


@pytest.mark.parametrize("number", [0, 3, -3, 99])
def test_an_unknown_version_is_not_found(fw9_template: PdfTemplate, number: int) -> None:
    services.template_publish(template=fw9_template)
    services.template_publish(template=fw9_template)

    with pytest.raises(NotFound):
        services.template_version_select(template=fw9_template, version_number=number)


def test_version_summary_tracks_unpublished_changes(fw9_template: PdfTemplate) -> None:
    summary = services.version_summary(fw9_template)
    assert (summary.published_number, summary.has_unpublished_changes) == (None, True)
    assert summary.latest_draft_version_number == 1

    services.template_publish(template=fw9_template)
    summary = services.version_summary(fw9_template)
    assert (summary.published_number, summary.has_unpublished_changes) == (1, False)
    assert summary.latest_draft_version_number == 1

    rename_first_field(fw9_template, "x")
    summary = services.version_summary(fw9_template)
    assert (summary.has_unpublished_changes, summary.latest_draft_version_number) == (True, 2)


def test_published_versions_share_the_stored_pdf(fw9_template: PdfTemplate) -> None:
    v1 = services.template_publish(template=fw9_template)
    working = services.working_version(fw9_template)

    assert v1.pdf_path == working.pdf_path
    stored = Path(settings.MEDIA_ROOT) / v1.pdf_path
    assert stored.read_bytes()[:5] == b"%PDF-"
    assert services.version_pdf(v1) == stored.read_bytes()


def _invalid(template: PdfTemplate, mutate) -> ValidationFailed:
    spec = copy.deepcopy(services.working_version(template).spec)
    mutate(spec)
    with pytest.raises(ValidationFailed) as failure:
        services.template_update_working(template=template, spec=spec)
    return failure.value


def test_validation_names_what_is_wrong(demo_template: PdfTemplate) -> None:
    def unknown_type(spec):
        spec["fields"][0]["type"] = "signatureBlob"

    def box_mismatch(spec):
        account = next(f for f in spec["fields"] if f["id"] == "account")
        account["boxes"] = account["boxes"][:8]

    def outside(spec):
        spec["fields"][1]["rect"]["x"] = 600

    def mixed_array(spec):
        spec["arrays"][0]["fieldIds"].append("price0")

    def duplicate(spec):
        spec["fields"][1]["id"] = spec["fields"][0]["id"]

    assert [(f.property, f.message) for f in _invalid(demo_template, unknown_type).fields] == [
        ("fields.0.type", "Unknown field type 'signatureBlob'.")
    ]
    problems = _invalid(demo_template, box_mismatch).fields
    assert problems[0].message == "Box count mismatch: 8 boxes for maxLength 9."
    assert problems[0].property.endswith(".boxes")
    assert [(f.property, f.message) for f in _invalid(demo_template, outside).fields] == [
        ("fields.1.rect", "The box lies outside the page.")
    ]
    messages = [f.message for f in _invalid(demo_template, mixed_array).fields]
    assert "Field 'price0' is already in another array." in messages
    assert "Mixed types in one array: dollar, shortText." in messages
    assert [f.message for f in _invalid(demo_template, duplicate).fields] == [
        "Duplicate field id 'name'."
    ]


def test_a_refused_save_changes_nothing(demo_template: PdfTemplate) -> None:
    before = copy.deepcopy(services.working_version(demo_template).spec)
    _invalid(demo_template, lambda spec: spec["fields"][0].update(type="nope"))

    assert services.working_version(demo_template).spec == before


def test_a_refused_import_stores_nothing(organization, settings) -> None:
    broken = (PDFS / "libreoffice-form.pdf").read_bytes()[:3000]

    with pytest.raises(ValidationFailed) as failure:
        services.template_create_from_pdf(organization=organization, title="x", pdf=broken)

    assert failure.value.fields[0].property == "file"
    assert "damaged" in failure.value.fields[0].message
    assert PdfTemplate.objects.count() == TemplateVersion.objects.count() == 0
    media = Path(settings.MEDIA_ROOT)
    assert not media.exists() or not any(p.is_file() for p in media.rglob("*"))


def test_another_organizations_template_is_not_found(fw9_template, other_organization) -> None:
    with pytest.raises(NotFound):
        services.template_get(organization=other_organization, eid=fw9_template.eid)


def test_unknown_font_names_are_refused_at_save(demo_template: PdfTemplate) -> None:
    def bad_fonts(spec):
        spec["style"]["fontFamily"] = "Comic Sanz"
        spec["fields"][2].setdefault("style", {})["fontFamily"] = "helvetica"

    problems = [(f.property, f.message) for f in _invalid(demo_template, bad_fonts).fields]

    assert problems == [
        ("style.fontFamily", 'Unknown font family "Comic Sanz".'),
        (
            "fields.2.style.fontFamily",
            'Unknown font family "helvetica". Font names are case-sensitive: '
            'did you mean "Helvetica"?',
        ),
    ]
