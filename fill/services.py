"""Filling a template: the only service of the fill endpoint. It stores nothing and logs no data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

from accounts.models import Organization
from accounts.payload_keys import payload_decrypt
from core.engine.images import load_image
from core.engine.problems import EngineError
from core.engine.template_spec import TemplateSpec
from core.errors import raise_for_engine_error
from core.resources import font_library, image_policy
from fill.engine import (
    FillContext,
    FillLimits,
    fill_pdf,
    parse_fill_request,
)
from templates_app.engine.describe import example_data
from templates_app.models import PdfTemplate, TemplateVersion
from templates_app.services import (
    TemplateSource,
    template_source,
    version_source,
    version_spec,
    working_version,
)


def fill_limits() -> FillLimits:
    return FillLimits(
        max_pages=settings.FILL_MAX_PAGES,
        max_array_length=settings.FILL_MAX_ARRAY_LENGTH,
        max_documents=settings.FILL_MAX_DOCUMENTS,
        max_data_url_bytes=settings.FILL_MAX_DATA_URL_BYTES,
        image_deadline_seconds=settings.FILL_IMAGE_DEADLINE_SECONDS,
    )


def fill_context() -> FillContext:
    policy = image_policy()
    return FillContext(
        fonts=font_library(),
        load_image=lambda url: load_image(url, policy),
        limits=fill_limits(),
        incremental=settings.FILL_INCREMENTAL_UPDATE,
    )


def fill_version(*, version: TemplateVersion, body: dict[str, Any]) -> bytes:
    """Fill one version of a template; every failure becomes a domain error in the wire shape."""
    return fill_source(version_source(version), body)


def fill_source(source: TemplateSource, body: Any) -> bytes:
    """Fill a template as read by ``template_source``; failures as fill_version's."""
    try:
        request = parse_fill_request(body, max_documents=settings.FILL_MAX_DOCUMENTS)
        return fill_pdf(
            template_pdf=source.pdf, spec=source.spec, request=request, context=fill_context()
        )
    except EngineError as error:
        raise_for_engine_error(error)


@dataclass(frozen=True)
class Filled:
    version: TemplateVersion  # the version filled (the caller may have named none)
    pdf: bytes
    # The top-level keys of ``data`` that name no field of the template (a misspelt alias),
    # in the order first sent: the fill ignores them, the answer reports them.
    ignored_keys: tuple[str, ...] = ()


def ignored_keys(spec: TemplateSpec, data: Any) -> tuple[str, ...]:
    """The keys of ``data`` (an object, or each object of a whole-PDF repeat's array) that are
    no alias of ``spec``'s fields or arrays, each once, in the order first sent."""
    aliases = {field.alias for field in spec.fields} | {array.alias for array in spec.arrays}
    documents = data if isinstance(data, list) else [data]
    found: dict[str, None] = {}
    for document in documents:
        if isinstance(document, dict):
            found.update((key, None) for key in document if key not in aliases)
    return tuple(found)


def fill_template(
    *, organization: Organization, template_eid: str, version_number: int | None, body: Any
) -> Filled:
    """Fill the organization's template ``template_eid`` at ``version_number`` (None: its
    default version); ``data`` may be the organization's encrypted payload (a string)."""
    source = template_source(
        organization=organization, eid=template_eid, version_number=version_number
    )
    if isinstance(body, dict) and isinstance(body.get("data"), str) and body["data"]:
        body = {**body, "data": payload_decrypt(organization=organization, text=body["data"])}
    pdf = fill_source(source, body)
    return Filled(source.version, pdf, ignored_keys(source.spec, body["data"]))


def fill_with_example_data(*, template: PdfTemplate) -> bytes:
    """The working version filled with generated example data (the admin's "test fill")."""
    version = working_version(template)
    return fill_version(version=version, body={"data": example_data(version_spec(version))})
