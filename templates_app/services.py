"""PDF templates: creation by import, edits to the working version, publishing, selection."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Max, QuerySet
from django.utils import timezone

from accounts.models import Organization
from core.blobs import blob_delete, blob_read, blob_save
from core.engine.problems import EngineError
from core.engine.template_spec import TemplateSpec
from core.errors import FieldError, NotFound, ValidationFailed, raise_for_engine_error
from core.lookups import get_by_eid
from core.office import PdfUpload, pdf_of_upload
from core.resources import font_library  # loads the fonts on its first call, not on import
from templates_app.engine.pdf_import import MAX_IMPORT_PAGES, ImportedTemplate, import_pdf
from templates_app.engine.text_tags import tag_template
from templates_app.engine.validation import validate_template_json
from templates_app.models import PdfTemplate, TemplateVersion

logger = logging.getLogger(__name__)

# A field's page or one of its boxes: what stops it fitting other pages.
_FIELD_PLACE_PROBLEM = re.compile(
    r"^fields\.(\d+)\.(?:page|rect|boxes\.\d+|options\.\d+\.rect|parts\.[^.]+)$"
)

WORKING_VERSION = -1
LATEST_PUBLISHED = -2
MAX_PDF_BYTES = 50 * 1024 * 1024


def template_list(
    *, organization: Organization, is_template: bool | None = None
) -> QuerySet[PdfTemplate]:
    templates = PdfTemplate.objects.filter(organization=organization)
    if is_template is not None:
        templates = templates.filter(is_template=is_template)
    return templates.order_by("-updated_at")


def template_get(*, organization: Organization, eid: str) -> PdfTemplate:
    """The organization's template; another organization's is as absent as a missing one."""
    return get_by_eid(PdfTemplate.objects.all(), "template", eid, organization=organization)


def _store_pdf(template: PdfTemplate, data: bytes) -> tuple[str, str]:
    return blob_save(prefix=f"templates/{template.organization.eid}/{template.eid}", data=data)


def template_upload(data: bytes, filename: str = "") -> PdfUpload:
    """An upload as a template's PDF: a PDF as it is, an Office document (DOCX, ODT, RTF...)
    converted, its pages bounded as an imported PDF's are. Too large or refused: a 400 on file."""
    if len(data) > MAX_PDF_BYTES:
        raise ValidationFailed.single("file", f"The PDF is larger than {MAX_PDF_BYTES} bytes.")
    return pdf_of_upload(data, filename, max_pages=MAX_IMPORT_PAGES)


def template_import(pdf: bytes) -> ImportedTemplate:
    """``pdf``'s pages, fields and cleaned base, with the fields its text tags place
    (``{{Signature;role=Tenant}}``: docs/text-tags.md; their text taken out of the PDF); a PDF
    too large or refused, or a tag that does not read, is a 400 on file (each such tag named
    with its page: the author fixes the document rather than finding a field missing)."""
    if len(pdf) > MAX_PDF_BYTES:
        raise ValidationFailed.single("file", f"The PDF is larger than {MAX_PDF_BYTES} bytes.")
    try:
        imported = import_pdf(pdf)
        tagged, spec, problems = tag_template(imported.pdf, imported.spec)
    except EngineError as error:
        raise_for_engine_error(error)
    if problems:
        raise ValidationFailed(
            [
                FieldError(
                    "file", f"Text tag {problem.text} on page {problem.page + 1}: {problem.message}"
                )
                for problem in problems
            ]
        )
    return ImportedTemplate(spec=spec, pdf=tagged)


def _store_source(template: PdfTemplate, upload: PdfUpload) -> dict[str, str]:
    """The Office document a converted PDF came from, stored beside it: the version's source
    fields (all empty for a PDF uploaded as one)."""
    if upload.source is None:
        return {"source_path": "", "source_sha256": "", "source_name": ""}
    path, sha = blob_save(
        prefix=f"templates/{template.organization.eid}/{template.eid}",
        data=upload.source,
        suffix=f".{upload.source_extension}",
    )
    return {"source_path": path, "source_sha256": sha, "source_name": upload.source_name[:255]}


def template_create_from_pdf(
    *,
    organization: Organization,
    title: str,
    pdf: bytes | PdfUpload,
    publish: bool = False,
    is_template: bool = True,
    filename: str = "",
) -> PdfTemplate:
    """Import ``pdf``: its form fields become the working version's fields. ``pdf`` may be an
    Office document (named ``filename`` in messages): it is converted, the PDF it became is the
    template's, and the document is kept beside it (the version's source). A `PdfUpload`
    already made (`template_upload`) is not converted again.

    A refused file (not a PDF or Office document, password-protected, XFA-only, damaged)
    stores nothing.
    """
    upload = pdf if isinstance(pdf, PdfUpload) else template_upload(pdf, filename)
    imported = template_import(upload.pdf)
    title = (title or "").strip() or "Untitled template"
    stored: list[str] = []
    try:
        with transaction.atomic():
            template = PdfTemplate.objects.create(
                organization=organization, title=title[:255], is_template=is_template
            )
            stored_path, sha = _store_pdf(template, imported.pdf)
            stored.append(stored_path)
            source = _store_source(template, upload)
            stored.append(source["source_path"])
            TemplateVersion.objects.create(
                template=template,
                number=None,
                pdf_path=stored_path,
                pdf_sha256=sha,
                spec=imported.spec.to_json(),
                **source,
            )
            if publish:
                template_publish(template=template)
    except Exception:
        for path in filter(None, stored):
            blob_delete(path)  # the row that would have named it does not exist
        raise
    return template


def template_create_with_spec(
    *, organization: Organization, title: str, pdf: bytes, spec: TemplateSpec, publish: bool = False
) -> PdfTemplate:
    """A template from a PDF and a field layout made elsewhere (the demo, uploaded packets)."""
    with transaction.atomic():
        template = template_create_from_pdf(organization=organization, title=title, pdf=pdf)
        template_update_working(template=template, spec=spec.to_json())
        if publish:
            template_publish(template=template)
    return template


def working_version(template: PdfTemplate) -> TemplateVersion:
    return template.versions.get(number__isnull=True)


def latest_published_of(versions: Iterable[TemplateVersion]) -> TemplateVersion | None:
    """The highest published version among ``versions``; None if none is published."""
    published = [v for v in versions if v.number is not None]
    return max(published, key=lambda v: v.number or 0) if published else None


def default_version_of(versions: Iterable[TemplateVersion]) -> TemplateVersion:
    """The version a template stands for when none is named: the latest published, else the
    working version. The one statement of that rule (fill, cast queries, lists use it)."""
    versions = list(versions)
    latest = latest_published_of(versions)
    return latest or next(v for v in versions if v.number is None)


def template_version_select(
    *, template: PdfTemplate, version_number: int | None
) -> TemplateVersion:
    """-1: the working version; -2 or None: the latest published (the working version if never
    published); N > 0: published version N. Anything else does not exist."""
    if version_number == WORKING_VERSION:
        return working_version(template)
    if version_number is None or version_number == LATEST_PUBLISHED:
        return default_version_of(template.versions.all())
    if version_number > 0:
        version = template.versions.filter(number=version_number).first()
        if version is not None:
            return version
    raise NotFound(f"Template '{template.eid}' has no version {version_number}.")


def parse_version_number(raw: str | None) -> int | None:
    """The ``versionNumber`` query parameter (absent or empty: the default version).

    A value that is not an integer is a malformed request (400 on ``versionNumber``), not a
    missing version: only an integer can name a version, and one that names none is a 404 later.
    """
    if raw is None or raw == "":
        return None
    # ASCII digits with an optional minus only: int() would also take " 3", "+3" and "1_0".
    digits = raw.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()):
        raise ValidationFailed.single(
            "versionNumber",
            "Must be an integer: a published version's number, -1 for the working version or -2"
            " for the latest published version.",
        )
    return int(raw)


def version_spec(version: TemplateVersion) -> TemplateSpec:
    return TemplateSpec.from_json(version.spec)


def version_pdf(version: TemplateVersion) -> bytes:
    return blob_read(version.pdf_path, version.pdf_sha256)


def version_source_document(version: TemplateVersion) -> PdfUpload:
    """The version's PDF with the Office document it was converted from (none: it was a PDF)."""
    if not version.source_path:
        return PdfUpload(pdf=b"")
    return PdfUpload(
        pdf=b"",
        source=blob_read(version.source_path, version.source_sha256),
        source_name=version.source_name,
        source_extension=version.source_path.rsplit(".", 1)[-1],
    )


@dataclass(frozen=True)
class TemplateSource:
    """What a fill reads of one version of a template: the version, its PDF and its spec."""

    version: TemplateVersion
    pdf: bytes
    spec: TemplateSpec


def version_source(version: TemplateVersion) -> TemplateSource:
    return TemplateSource(version, version_pdf(version), version_spec(version))


def template_source(
    *, organization: Organization, eid: str, version_number: int | None
) -> TemplateSource:
    """The organization's template ``eid`` at ``version_number`` (as template_version_select
    reads it), with its PDF and spec: a fill's one read of the templates."""
    template = template_get(organization=organization, eid=eid)
    version = template_version_select(template=template, version_number=version_number)
    return version_source(version)


@transaction.atomic
def template_update_working(
    *, template: PdfTemplate, spec: dict[str, Any], title: str | None = None
) -> TemplateVersion:
    """Replace the working version's pages/fields/arrays/style after validating them.

    Page geometry comes from the base PDF, never from the caller.
    """
    version = TemplateVersion.objects.select_for_update().get(
        template=template, number__isnull=True
    )
    candidate = {**spec, "pages": version.spec["pages"]}
    problems = validate_template_json(candidate, font_problem=font_library().family_problem)
    if problems:
        raise ValidationFailed.from_problems(problems)
    version.spec = TemplateSpec.from_json(candidate).to_json()
    version.save(update_fields=["spec", "updated_at"])
    if title is not None and title.strip() and title.strip() != template.title:
        template.title = title.strip()[:255]
    template.save(update_fields=["title", "updated_at"])
    return version


@transaction.atomic
def template_publish(*, template: PdfTemplate) -> TemplateVersion:
    """Snapshot the working version as the next published number; published ones never change."""
    locked = PdfTemplate.objects.select_for_update().get(pk=template.pk)
    working = working_version(locked)
    problems = validate_template_json(working.spec)
    if problems:
        raise ValidationFailed.from_problems(problems)
    highest = locked.versions.aggregate(highest=Max("number"))["highest"] or 0
    published = TemplateVersion.objects.create(
        template=locked,
        number=highest + 1,
        pdf_path=working.pdf_path,
        pdf_sha256=working.pdf_sha256,
        source_path=working.source_path,
        source_sha256=working.source_sha256,
        source_name=working.source_name,
        spec=working.spec,
        published_at=timezone.now(),
    )
    locked.save(update_fields=["updated_at"])
    return published


def spec_without_fields(spec: dict[str, Any], dropped_ids: set[str]) -> dict[str, Any]:
    """``spec`` without the fields ``dropped_ids``; an array loses them too and goes when empty."""
    fields = [f for f in spec.get("fields", []) if f["id"] not in dropped_ids]
    arrays = []
    for array in spec.get("arrays", []):
        ids = [i for i in array["fieldIds"] if i not in dropped_ids]
        if ids:
            arrays.append({**array, "fieldIds": ids})
    return {**spec, "fields": fields, "arrays": arrays}


@transaction.atomic
def template_duplicate(*, template: PdfTemplate, title: str | None = None) -> PdfTemplate:
    """A new, unpublished template of the same organization whose working version is a copy of
    ``template``'s working version (its PDF stored again, under the copy's own name)."""
    source = working_version(template)
    copy = PdfTemplate.objects.create(
        organization=template.organization,
        title=(title or f"{template.title[:248]} (copy)")[:255],
        is_template=template.is_template,
    )
    stored_path, sha = _store_pdf(copy, version_pdf(source))
    TemplateVersion.objects.create(
        template=copy,
        number=None,
        pdf_path=stored_path,
        pdf_sha256=sha,
        spec=source.spec,
        **_store_source(copy, version_source_document(source)),
    )
    return copy


@dataclass(frozen=True)
class PdfReplaced:
    version: TemplateVersion
    # The fields (as spec JSON) that no longer fit the new pages, so were left out.
    dropped: list[dict[str, Any]]


def template_replace_pdf(
    *, template: PdfTemplate, pdf: bytes, keep_fields: bool = True, filename: str = ""
) -> PdfReplaced:
    """Give the working version a new PDF.

    With ``keep_fields``, the template's fields stay where they still fit the new pages (their
    page exists and every box of theirs lies inside it) and the others are dropped and reported;
    without, the new PDF's own form fields replace them. Style is kept either way. A refused PDF
    changes nothing. An Office document is converted, and kept as the version's source.
    """
    upload = template_upload(pdf, filename)
    imported = template_import(upload.pdf)
    new = imported.spec.to_json()
    with transaction.atomic():
        version = TemplateVersion.objects.select_for_update().get(
            template=template, number__isnull=True
        )
        old = version.spec
        if keep_fields:
            spec = {**old, "pages": new["pages"]}
            # The one validator says what no longer fits: a problem with a field's page or boxes
            # (only those: a field is not dropped for a rule that was added after it was saved).
            misfits = {
                int(match.group(1))
                for problem in validate_template_json(spec)
                if (match := _FIELD_PLACE_PROBLEM.match(problem.path))
            }
            dropped = [f for i, f in enumerate(old["fields"]) if i in misfits]
            spec = spec_without_fields(spec, {f["id"] for f in dropped})
        else:
            spec = {**new, "style": old.get("style", {})}
            dropped = []
        version.pdf_path, version.pdf_sha256 = _store_pdf(template, imported.pdf)
        source = _store_source(template, upload)
        for name, value in source.items():
            setattr(version, name, value)
        version.spec = TemplateSpec.from_json(spec).to_json()
        version.save(update_fields=["pdf_path", "pdf_sha256", *source, "spec", "updated_at"])
        template.save(update_fields=["updated_at"])
    return PdfReplaced(version=version, dropped=dropped)


@dataclass(frozen=True)
class VersionSummary:
    """What the ``cast`` query reports about a template's versions."""

    published_number: int | None
    has_unpublished_changes: bool
    latest_draft_version_number: int
    published_at: Any


def version_summary(template: PdfTemplate) -> VersionSummary:
    """Built from ``template.versions.all()``, so a prefetched list costs no query."""
    versions = list(template.versions.all())
    working = next(v for v in versions if v.number is None)
    latest = latest_published_of(versions)
    changed = not working.same_content_as(latest)
    published_number = latest.number if latest else None
    return VersionSummary(
        published_number=published_number,
        has_unpublished_changes=changed,
        # The number the working version would get if published now.
        latest_draft_version_number=(published_number or 0) + (1 if changed else 0),
        published_at=latest.published_at if latest else None,
    )


def templates_with_default_versions(
    *, organization: Organization, is_template: bool | None
) -> list[tuple[PdfTemplate, TemplateVersion]]:
    """Each template with its default version (latest published, else working), in 2 queries."""
    templates = template_list(organization=organization, is_template=is_template).prefetch_related(
        "versions"
    )
    return [(template, default_version_of(template.versions.all())) for template in templates]


@transaction.atomic
def template_rename_fields(
    *,
    template: PdfTemplate,
    field_aliases: dict[str, str],
    array_aliases: dict[str, str] | None = None,
) -> tuple[TemplateVersion, int]:
    """Give fields (by id) and arrays (by id) of the working version new aliases, all at once.

    Ids that name nothing are ignored; an empty alias is refused like any invalid spec (400 on
    ``fields.<n>.alias``). Returns the saved version and how many aliases changed.
    """
    version = TemplateVersion.objects.select_for_update().get(
        template=template, number__isnull=True
    )
    spec = version.spec
    changed = 0
    fields = []
    for field in spec.get("fields", []):
        alias = field_aliases.get(field["id"])
        if alias is not None and alias.strip() != field.get("alias", field["id"]):
            field = {**field, "alias": alias.strip()}
            changed += 1
        fields.append(field)
    arrays = []
    for array in spec.get("arrays", []):
        alias = (array_aliases or {}).get(array["id"])
        if alias is not None and alias.strip() != array.get("alias", array["id"]):
            array = {**array, "alias": alias.strip()}
            changed += 1
        arrays.append(array)
    if not changed:
        return version, 0
    saved = template_update_working(
        template=template, spec={**spec, "fields": fields, "arrays": arrays}
    )
    return saved, changed
