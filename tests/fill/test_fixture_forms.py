"""Real-world forms from ../shared/fixtures: imported, then filled with every field."""

import io

import pytest
from pypdf import PdfReader

from templates_app.services import template_create_from_pdf, version_spec, working_version
from tests.fixtures import FILLABLE_PDFS, PDFS
from tests.pdfcheck import dark_pixels, render, text_in_rect, words


def data_for(spec) -> tuple[dict, dict[str, str]]:
    """A value for every key: short unique texts (they must fit tiny boxes), checks, options."""
    data, expected = {}, {}
    for index, field in enumerate(spec.fields):
        if field.alias in data:
            continue
        if field.type in ("shortText", "longText"):
            data[field.alias] = expected[field.alias] = f"V{index}"
        elif field.type == "charList":
            data[field.alias] = "".join(
                str(i % 10) for i in range(field.max_length or len(field.boxes))
            )
        elif field.type == "checkbox":
            data[field.alias] = True
        elif field.type == "radioGroup":
            data[field.alias] = field.options[-1].id
    return data, expected


@pytest.mark.parametrize("name", FILLABLE_PDFS)
def test_fixture_form_filled_with_all_its_fields(name: str, organization, fill) -> None:
    template = template_create_from_pdf(
        organization=organization, title=name, pdf=(PDFS / name).read_bytes()
    )
    spec = version_spec(working_version(template))
    data, expected = data_for(spec)

    response = fill(template, {"data": data}, "?versionNumber=-1")

    assert response.status_code == 200, response.content[:300]
    pdf = response.content
    assert len(PdfReader(io.BytesIO(pdf)).pages) == len(spec.pages)
    pages = words(pdf)
    upright = [
        f
        for f in spec.fields
        if f.alias in expected and not f.rotation and not spec.pages[f.page].rotate
    ]
    for field in upright:
        rect = {
            "x": field.rect.x,
            "y": field.rect.y,
            "width": field.rect.width,
            "height": field.rect.height,
        }
        assert text_in_rect(pages[field.page], rect, tolerance=1.5) == expected[field.alias], (
            field.alias
        )
    turned = [f for f in spec.fields if f.alias in expected and f not in upright]
    all_text = " ".join(w.text for page in pages for w in page)
    for field in turned:
        assert expected[field.alias] in all_text, field.alias
    for field in spec.fields:
        if field.type == "charList":
            digits = [
                text_in_rect(
                    pages[field.page],
                    {"x": b.x, "y": b.y, "width": b.width, "height": b.height},
                    1.5,
                )
                for b in field.boxes
            ]
            assert digits == [str(i % 10) for i in range(len(field.boxes))], field.alias


def test_checkboxes_of_a_real_form_are_drawn(organization, fill) -> None:
    template = template_create_from_pdf(
        organization=organization, title="w9", pdf=(PDFS / "irs-fw9-2018.pdf").read_bytes()
    )
    spec = version_spec(working_version(template))
    boxes = [f for f in spec.fields if f.type == "checkbox"]

    pdf = fill(template, {"data": {boxes[0].alias: True}}, "?versionNumber=-1").content
    image = render(pdf, dpi=144)
    rect = lambda f: {"x": f.rect.x, "y": f.rect.y, "width": f.rect.width, "height": f.rect.height}  # noqa: E731

    assert dark_pixels(image, rect(boxes[0]), 792, dpi=144, threshold=100) > 10
    assert dark_pixels(image, rect(boxes[1]), 792, dpi=144, threshold=100) < dark_pixels(
        image, rect(boxes[0]), 792, dpi=144, threshold=100
    )


def test_rotated_and_offset_pages_show_text_upright_inside_the_box(organization, fill) -> None:
    """qpdf's boxes.pdf: /Rotate 0/90/180/270, and a MediaBox with a negative origin."""
    from core.engine.template_spec import FieldSpec, Rect
    from templates_app.services import template_update_working

    template = template_create_from_pdf(
        organization=organization,
        title="boxes",
        pdf=(PDFS / "tpl-qpdf-boxes-crop-offset-rotate.pdf").read_bytes(),
    )
    spec = version_spec(working_version(template))
    fields = []
    for index, page in enumerate(spec.pages):
        # A box 260 wide and 24 high as the page is displayed, whatever its rotation.
        width, height = (24, 260) if page.rotate in (90, 270) else (260, 24)
        x0, y0 = page.media_box[0], page.media_box[1]
        fields.append(
            FieldSpec(
                id=f"p{index}",
                alias=f"p{index}",
                type="shortText",
                page=index,
                rect=Rect(x0 + 150, y0 + 200, width, height),
            )
        )
    template_update_working(
        template=template, spec={**spec.to_json(), "fields": [f.to_json() for f in fields]}
    )

    pdf = fill(
        template, {"data": {f"p{i}": f"Upright{i} text" for i in range(8)}}, "?versionNumber=-1"
    ).content
    pages = words(pdf)

    for index in range(8):
        found = [w for w in pages[index] if w.text in (f"Upright{index}", "text")]
        assert [w.text for w in sorted(found, key=lambda w: w.x0)] == [f"Upright{index}", "text"], (
            index
        )
        assert abs(found[0].y0 - found[1].y0) < 1  # one horizontal line as displayed
        assert found[0].y1 - found[0].y0 > 7  # at the asked size, not shrunk to nothing
