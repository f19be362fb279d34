"""What a later revision of a signed PDF changed, by kind: our own analysis of the objects each
incremental update writes, for where pyHanko's difference analysis gives up (it refuses what
many other tools write: a DSS whose VRI entries are rewritten, freed objects, objects it cannot
place, a missing object) or cannot tell a later signature from filled-in form fields.

Every object a revision rewrites that existed before is compared with what it was, and judged by
what it is; objects new in the revision are judged where something old comes to refer to them (a
page's annotations, the form's fields, the catalog). The kinds, from harmless to not:

- VALIDATION: long-term validation data and its plumbing (the document security store and its
  VRI entries, document timestamps, XMP metadata, the structure tree, /Extensions, /Version);
- SIGNATURE: a signature in an empty or new signature field (its field, widget, appearance);
- FORM: other form fields filled in or added;
- ANNOTATION: comments and other annotations added, changed or removed;
- OTHER: anything else, the content above all: a page, a signature's dictionary,
  an appearance stream that is not an annotation's, a catalog entry with no part in the above.

PAGES is OTHER that adds, removes or replaces pages (the page tree). The update's own
cross-reference stream and object streams are containers, not changes. What
cannot be read is UNKNOWN. EN 319 142-1 and DSS's modification detection class changes the same
way (extension, signature or form fill, annotation, undefined).

Pure Python (no Django).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.reader import PdfFileReader

from esign.engine.revision_objects import (
    changed_keys,
    is_annotation,
    is_field_or_widget,
    is_structure,
    page_refs,
    resolve_at,
    same_object,
    what_of,
)

logger = logging.getLogger(__name__)

VALIDATION = "validation"
SIGNATURE = "signature"
FORM = "form"
ANNOTATION = "annotation"
OTHER = "other"
PAGES = "pages"  # pages added, removed or replaced: OTHER, and said as such
UNKNOWN = "unknown"
# a field's appearance replaced while its value stayed: OTHER, whatever pyHanko says of it
REPLACED = "replaced"

# Catalog entries whose change is validation data or its plumbing (DSS: extension changes):
# the store, the XMP metadata and structure tree that tools update along with it. The document's
# language (/Lang), outline, viewer settings and the like are the document's: a change.
_CATALOG_VALIDATION = frozenset(
    {"/DSS", "/Extensions", "/Version", "/Metadata", "/StructTreeRoot", "/MarkInfo"}
)
# Catalog entries a signing tool rewrites when it adds a signature (DSS: signature or form-fill
# changes): the form, its permissions, output intents, private application data.
_CATALOG_SIGNING = frozenset({"/AcroForm", "/Perms", "/OutputIntents", "/PieceInfo"})
# Entries of a field or widget a signature or a filled-in value rewrites.
_FIELD_VALUE_KEYS = frozenset(
    {"/V", "/DV", "/I", "/AP", "/AS", "/MK", "/DA", "/F", "/Kids", "/P", "/StructParent"}
    | {"/Lock", "/SV"}
)
# The entries that hold a field's value or state: filling a field changes one of them.
_FIELD_STATE_KEYS = frozenset({"/V", "/AS", "/Kids"})
# The entries of a resource dictionary: each names what content streams use by name.
_RESOURCE_KEYS = frozenset(
    {"/Font", "/XObject", "/ExtGState", "/ColorSpace", "/Pattern", "/Shading", "/Properties"}
    | {"/ProcSet"}
)
# Entries of a page besides /Annots that tools update along with annotations: tab order and
# structure (tagged annotations); no effect on what the page shows.
_PAGE_NEUTRAL_KEYS = frozenset({"/Annots", "/Tabs", "/StructParents"})
_ACROFORM_NEUTRAL_KEYS = frozenset(
    {"/Fields", "/SigFlags", "/DR", "/DA", "/NeedAppearances", "/CO", "/Q"}
)
_CONTAINER_TYPES = frozenset({"/XRef", "/ObjStm"})
# The entries of a page-tree node its pages inherit (PDF 2.0 § 7.7.3.4): what they show. The
# others place its pages (/Kids, /Count) or are no reader's (a tool's private /ITXT).
_INHERITED_PAGE_KEYS = frozenset({"/Resources", "/MediaBox", "/CropBox", "/Rotate"})


def revision_changes(reader: PdfFileReader, revision: int) -> frozenset[str]:
    """The kinds of change ``revision`` makes to the one before it (an empty set: none at
    all); UNKNOWN when it cannot be read."""
    try:
        analysis = _Revision(reader, revision)
        kinds = frozenset(analysis.kinds())
        if analysis.reasons:
            logger.debug("verify: revision %d: %s", revision, "; ".join(analysis.reasons))
        return kinds
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - hostile input: what cannot be read is not shown harmless
        logger.info("verify: revision %d not analysable", revision, exc_info=True)
        return frozenset({UNKNOWN})


class _Revision:
    def __init__(self, reader: PdfFileReader, revision: int) -> None:
        self.reader = reader
        self.new_rev = revision
        self.old_rev = revision - 1
        self._appearances: dict[generic.Reference, str] | None = None
        self.reasons: list[str] = []
        self.form_refs: set[generic.Reference] = set()
        self.catalog = generic.DictionaryObject()
        self._page_lists: dict[int, list[generic.Reference] | None] = {}

    def new(self, value: object) -> object:
        return self._resolve(value, self.new_rev)

    def old(self, value: object) -> object:
        return self._resolve(value, self.old_rev)

    def _resolve(self, value: object, revision: int) -> object:
        if isinstance(value, generic.IndirectObject):
            return self.reader.get_object(value.reference, revision=revision)
        return value

    def kinds(self) -> set[str]:
        xrefs = self.reader.xrefs
        trailer = self.reader.trailer
        new_root = trailer.raw_get("/Root", revision=self.new_rev)
        old_root = trailer.raw_get("/Root", revision=self.old_rev)
        try:
            info = trailer.raw_get("/Info", revision=self.new_rev)
        except KeyError:
            info = None
        skip = {
            r.reference for r in (new_root, old_root, info) if isinstance(r, generic.IndirectObject)
        }
        new_catalog, old_catalog = self.new(new_root), self.old(old_root)
        if not isinstance(new_catalog, generic.DictionaryObject):
            return {UNKNOWN}
        self.catalog = new_catalog
        kinds: set[str] = set()
        if new_catalog != old_catalog:
            kinds |= self._catalog(old_catalog, new_catalog)
        validation_refs = self._reachable(
            new_catalog.raw_get("/DSS") if "/DSS" in new_catalog else None
        )
        # the form's dictionary and its default resources (the fonts of field appearances)
        form = new_catalog.raw_get("/AcroForm") if "/AcroForm" in new_catalog else None
        self.form_refs = self._reachable(form, depth=1)
        if self.form_refs:
            resources = self.new(form)
            if isinstance(resources, generic.DictionaryObject) and "/DR" in resources:
                self.form_refs |= self._reachable(resources.raw_get("/DR"), depth=2)
        for ref in xrefs.explicit_refs_in_revision(self.new_rev):
            if ref in skip or ref in validation_refs:
                if ref in validation_refs:
                    kinds.add(VALIDATION)
                continue
            if xrefs.get_historical_ref(ref, self.old_rev) is None:
                continue  # new: judged where something old comes to refer to it
            new = self.reader.get_object(ref, revision=self.new_rev)
            if isinstance(new, generic.StreamObject) and new.get("/Type") in _CONTAINER_TYPES:
                continue  # the update's own cross-reference or object stream
            old = self.reader.get_object(ref, revision=self.old_rev)
            if same_object(old, new):
                continue
            found = self._modified(ref, old, new)
            if OTHER in found:
                self.explain(f"object {ref.idnum} ({what_of(new)}) changed")
            kinds |= found
        return kinds

    def explain(self, why: str) -> None:
        """Record why a change is OTHER: the first few reasons go to the debug log."""
        if len(self.reasons) < 5:
            self.reasons.append(why)

    def _reachable(self, start: object, depth: int = 5) -> set[generic.Reference]:
        """The references reachable from ``start`` (the DSS) at the new revision, ``depth``
        levels deep: the store, its arrays, VRI entries, certificates, CRLs, OCSP responses."""
        found: set[generic.Reference] = set()
        frontier = [start]
        for _ in range(depth):
            following = []
            for value in frontier:
                if isinstance(value, generic.IndirectObject):
                    if value.reference in found:
                        continue
                    found.add(value.reference)
                    value = self.new(value)
                if isinstance(value, generic.StreamObject):
                    continue
                if isinstance(value, generic.DictionaryObject):
                    following += [value.raw_get(k) for k in value]
                elif isinstance(value, generic.ArrayObject):
                    following += [value.raw_get(i) for i in range(len(value))]
            frontier = following
        return found

    def _catalog(self, old: object, new: object) -> set[str]:
        if not (
            isinstance(old, generic.DictionaryObject) and isinstance(new, generic.DictionaryObject)
        ):
            return {OTHER}
        kinds: set[str] = set()
        for key in changed_keys(old, new):
            if key in _CATALOG_VALIDATION:
                kinds.add(VALIDATION)
            elif key == "/AcroForm":
                kinds |= self._acroform(
                    self.old(old.raw_get(key)) if key in old else generic.DictionaryObject(),
                    self.new(new.raw_get(key)) if key in new else generic.DictionaryObject(),
                )
            elif key in _CATALOG_SIGNING:
                kinds.add(SIGNATURE)
            elif key == "/Pages":
                kinds |= self._page_tree(
                    self.old(old.raw_get(key)) if key in old else None,
                    self.new(new.raw_get(key)) if key in new else None,
                )
            elif key == "/Names":
                kinds.add(FORM)  # named destinations, embedded files, scripts: not content
            else:
                self.explain(f"the catalog's {key} changed")
                kinds.add(OTHER)
        return kinds

    def _acroform(self, old: object, new: object) -> set[str]:
        if not (
            isinstance(old, generic.DictionaryObject) and isinstance(new, generic.DictionaryObject)
        ):
            return {OTHER}
        kinds: set[str] = set()
        for key in changed_keys(old, new):
            if key == "/Fields":
                kinds |= self._grown(
                    self.old(old.raw_get(key)) if key in old else generic.ArrayObject(),
                    self.new(new.raw_get(key)),
                )
            elif key in _ACROFORM_NEUTRAL_KEYS:
                kinds.add(SIGNATURE)
            else:
                self.explain(f"the form's {key} changed")
                kinds.add(OTHER)  # /XFA above all: what XFA viewers show
        return kinds

    def _grown(self, old: object, new: object) -> set[str]:
        """An array of annotations or fields: the kinds of what was added, ANNOTATION when any
        was removed or reordered, OTHER when it is not such an array."""
        if not (isinstance(old, generic.ArrayObject) and isinstance(new, generic.ArrayObject)):
            return {OTHER}
        old_items = [old.raw_get(i) for i in range(len(old))]
        new_items = [new.raw_get(i) for i in range(len(new))]
        if new_items[: len(old_items)] != old_items:
            kinds = {self._element(item) for item in new_items if item not in old_items}
            return kinds | {ANNOTATION}
        return {self._element(item) for item in new_items[len(old_items) :]}

    def _element(self, item: object) -> str:
        """What an annotation or field added to a page or the form is."""
        value = self.new(item)
        if not isinstance(value, generic.DictionaryObject):
            return OTHER
        if is_field_or_widget(value):
            return self._field_kind(value)
        if is_annotation(value):
            return ANNOTATION
        return OTHER

    def _field_kind(self, field: generic.DictionaryObject) -> str:
        if _field_type(field, self) != "/Sig":
            return FORM
        value = self.new(field.raw_get("/V")) if "/V" in field else None
        if value is None and "/Parent" in field:
            parent = self.new(field.raw_get("/Parent"))
            if isinstance(parent, generic.DictionaryObject) and "/V" in parent:
                value = self.new(parent.raw_get("/V"))
        if isinstance(value, generic.DictionaryObject) and value.get("/Type") == "/DocTimeStamp":
            return VALIDATION
        return SIGNATURE

    def _modified(self, ref: generic.Reference, old: object, new: object) -> set[str]:
        if type(old) is not type(new):
            return {OTHER}
        if ref in self.form_refs and isinstance(new, generic.DictionaryObject):
            if isinstance(new, generic.StreamObject):
                return {OTHER}
            return self._acroform(old, new) if "/Fields" in new else {SIGNATURE}
        if isinstance(new, generic.StreamObject):
            return {self._stream(ref, new)}
        if isinstance(new, generic.ArrayObject):
            return self._grown(old, new)
        if not isinstance(new, generic.DictionaryObject) or not isinstance(
            old, generic.DictionaryObject
        ):
            return {OTHER}
        kind = new.get("/Type")
        if kind in ("/Sig", "/DocTimeStamp") or old.get("/Type") in ("/Sig", "/DocTimeStamp"):
            return {OTHER}  # a signature's dictionary rewritten after it was signed
        if kind == "/Page":
            return self._page(old, new)
        if kind == "/Pages":
            return self._page_tree(old, new)
        if is_field_or_widget(new):
            return self._field(old, new)
        if is_annotation(new):
            return {ANNOTATION}
        if is_structure(new):
            return {VALIDATION}
        if set(new) <= _RESOURCE_KEYS and set(old) <= _RESOURCE_KEYS:
            return {SIGNATURE} if self._resources_grown(old, new) else {OTHER}
        return {OTHER}

    def _page_tree(self, old: object, new: object) -> set[str]:
        """A node of the page tree rewritten (or the tree replaced): PAGES only when the pages,
        their number or order, differ from the revision before; a node's own attributes that
        its pages inherit (/Resources, /MediaBox, /CropBox, /Rotate) changed is OTHER; the tree
        re-balanced around the same pages, or a node's other entries, no change."""
        before, after = self._page_list(self.old_rev), self._page_list(self.new_rev)
        if before is None or after is None or before != after:
            self.explain("pages were added, removed or reordered")
            return {PAGES}
        if not (
            isinstance(old, generic.DictionaryObject) and isinstance(new, generic.DictionaryObject)
        ):
            return {OTHER}
        if changed_keys(old, new) & _INHERITED_PAGE_KEYS:
            self.explain("a page-tree node's inherited attributes changed")
            return {OTHER}
        return set()

    def _page_list(self, revision: int) -> list[generic.Reference] | None:
        """The references of the document's pages at ``revision``, in order (None when the tree
        cannot be read)."""
        if revision not in self._page_lists:
            self._page_lists[revision] = page_refs(self.reader, revision)
        return self._page_lists[revision]

    def _page(self, old: generic.DictionaryObject, new: generic.DictionaryObject) -> set[str]:
        changed = changed_keys(old, new)
        if "/Resources" in changed and self._resources_grown(
            self.old(old.raw_get("/Resources")) if "/Resources" in old else None,
            self.new(new.raw_get("/Resources")) if "/Resources" in new else None,
        ):
            changed.discard("/Resources")  # names added that the unchanged content cannot use
        if changed - _PAGE_NEUTRAL_KEYS:
            self.explain(f"a page's {', '.join(sorted(changed - _PAGE_NEUTRAL_KEYS))} changed")
            return {OTHER}
        if "/Annots" not in changed:
            return {VALIDATION} if changed else set()
        old_annots = self.old(old.raw_get("/Annots")) if "/Annots" in old else generic.ArrayObject()
        new_annots = self.new(new.raw_get("/Annots")) if "/Annots" in new else generic.ArrayObject()
        return self._grown(old_annots, new_annots)

    def _resources_grown(self, old: object, new: object, depth: int = 2) -> bool:
        """Whether ``new`` (a resource dictionary, or one of its name tables) only adds names to
        ``old``: every name it had still means the same object, so content that was there
        draws the same."""
        if not (
            isinstance(old, generic.DictionaryObject) and isinstance(new, generic.DictionaryObject)
        ) or isinstance(new, generic.StreamObject):
            return False
        for key in old:
            if key not in new:
                return False
            before, after = old.raw_get(key), new.raw_get(key)
            if before == after and not (
                isinstance(before, generic.IndirectObject)
                and depth > 1
                and not same_object(self.old(before), self.new(after))
            ):
                continue
            if depth <= 1 or not self._resources_grown(self.old(before), self.new(after), 1):
                return False
        return True

    def _field(self, old: generic.DictionaryObject, new: generic.DictionaryObject) -> set[str]:
        changed = changed_keys(old, new)
        if changed - _FIELD_VALUE_KEYS:
            self.explain(f"a field's {', '.join(sorted(changed - _FIELD_VALUE_KEYS))} changed")
            return {OTHER}
        if _field_type(new, self) != "/Sig":
            if (
                "/AP" in changed
                and not changed & _FIELD_STATE_KEYS
                and self._value(old, self.old_rev) == self._value(new, self.new_rev)
            ):
                # its appearance replaced, its value not: not a value filled in, but what the
                # field shows made other than what was signed (DSS: an undefined change)
                self.explain("a field's appearance changed without its value")
                return {REPLACED}
            return {FORM}
        if "/V" in changed and "/V" in old:
            return {OTHER}  # a signature replaced by another
        if "/Kids" in changed:
            return self._grown(
                self.old(old.raw_get("/Kids")) if "/Kids" in old else generic.ArrayObject(),
                self.new(new.raw_get("/Kids")),
            )
        return {self._field_kind(new)}

    def _value(self, field: generic.DictionaryObject, revision: int) -> object:
        """A field's value (/V, inherited from its parents, at most 10 up) at ``revision``."""
        node: object = field
        for _ in range(10):
            if not isinstance(node, generic.DictionaryObject):
                return None
            if "/V" in node:
                return resolve_at(self.reader, node.raw_get("/V"), revision)
            if "/Parent" not in node:
                return None
            node = resolve_at(self.reader, node.raw_get("/Parent"), revision)
        return None

    def _stream(self, ref: generic.Reference, new: generic.StreamObject) -> str:
        if new.get("/Type") == "/Metadata":
            return VALIDATION
        if new.get("/Subtype") == "/Form":
            return self.appearances().get(ref, OTHER)
        return OTHER

    def appearances(self) -> dict[generic.Reference, str]:
        """The appearance streams of every annotation on every page at the new revision, by
        reference, with what their annotation is: a form XObject drawn by the page itself is
        content, one an annotation shows is that annotation's."""
        if self._appearances is None:
            self._appearances = {}
            for page in _pages(
                self,
                self.new(self.catalog.raw_get("/Pages")) if "/Pages" in self.catalog else None,
            ):
                annots = self.new(page.raw_get("/Annots")) if "/Annots" in page else None
                if not isinstance(annots, generic.ArrayObject):
                    continue
                for i in range(len(annots)):
                    annot = self.new(annots.raw_get(i))
                    if not isinstance(annot, generic.DictionaryObject) or "/AP" not in annot:
                        continue
                    kind = self._field_kind(annot) if is_field_or_widget(annot) else ANNOTATION
                    for ref in _stream_refs(self, annot.raw_get("/AP")):
                        self._appearances[ref] = kind
        return self._appearances


def _field_type(field: generic.DictionaryObject, revision: _Revision) -> str | None:
    """The field type, inherited from the parents (at most 10 up)."""
    node: object = field
    for _ in range(10):
        if not isinstance(node, generic.DictionaryObject):
            return None
        if "/FT" in node:
            return str(node["/FT"])
        if "/Parent" not in node:
            return None
        node = revision.new(node.raw_get("/Parent"))
    return None


def _pages(
    revision: _Revision, root: object, limit: int = 100_000
) -> Iterable[generic.DictionaryObject]:
    """The pages of the page tree under ``root`` (cycles and depth bounded)."""
    seen: set[int] = set()
    stack = [root]
    while stack and len(seen) < limit:
        node = stack.pop()
        if not isinstance(node, generic.DictionaryObject) or id(node) in seen:
            continue
        seen.add(id(node))
        if node.get("/Type") == "/Page" or "/Kids" not in node:
            yield node
            continue
        kids = revision.new(node.raw_get("/Kids"))
        if isinstance(kids, generic.ArrayObject):
            stack += [revision.new(kids.raw_get(i)) for i in reversed(range(len(kids)))]


def _stream_refs(revision: _Revision, value: object, depth: int = 3) -> set[generic.Reference]:
    """The references of the streams in an appearance dictionary (/N, /R, /D, their states)."""
    found: set[generic.Reference] = set()
    if depth == 0:
        return found
    if isinstance(value, generic.IndirectObject):
        resolved = revision.new(value)
        if isinstance(resolved, generic.StreamObject):
            return {value.reference}
        value = resolved
    if isinstance(value, generic.DictionaryObject):
        for key in value:
            found |= _stream_refs(revision, value.raw_get(key), depth - 1)
    return found
