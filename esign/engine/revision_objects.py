"""The PDF objects of a signed file's revisions, read and compared for
`esign.engine.revision_changes`: what an object is, whether two are the same, which keys changed,
and the page tree at a revision. Pure Python (no Django)."""

from __future__ import annotations

from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.reader import PdfFileReader


def what_of(value: object) -> str:
    if isinstance(value, generic.DictionaryObject):
        kind = value.get("/Type") or value.get("/Subtype")
        keys = ",".join(sorted(str(k) for k in value)[:8])
        return f"{'stream' if isinstance(value, generic.StreamObject) else 'dict'} {kind} [{keys}]"
    return type(value).__name__


def same_object(old: object, new: object) -> bool:
    if isinstance(old, generic.StreamObject) and isinstance(new, generic.StreamObject):
        return old == new and old.encoded_data == new.encoded_data
    return old == new


def changed_keys(old: generic.DictionaryObject, new: generic.DictionaryObject) -> set[str]:
    return {
        str(k)
        for k in set(old) | set(new)
        if k not in old or k not in new or old.raw_get(k) != new.raw_get(k)
    }


def is_field_or_widget(value: generic.DictionaryObject) -> bool:
    return (
        value.get("/Subtype") == "/Widget"
        or "/FT" in value
        or ("/T" in value and "/Subtype" not in value)
    )


def is_annotation(value: generic.DictionaryObject) -> bool:
    return "/Subtype" in value and "/Rect" in value and value.get("/Type", "/Annot") == "/Annot"


def is_structure(value: generic.DictionaryObject) -> bool:
    """A structure tree's node (tagged PDF): its root, an element, a parent-tree node."""
    if value.get("/Type") in ("/StructTreeRoot", "/StructElem", "/MCR", "/OBJR"):
        return True
    if "/S" in value and "/P" in value:
        return True  # a structure element without /Type
    return "/Nums" in value or ("/Limits" in value and "/Kids" in value)


def page_refs(
    reader: PdfFileReader, revision: int, limit: int = 100_000
) -> list[generic.Reference] | None:
    """The references of the pages of the page tree at ``revision``, in order; None when it
    cannot be read (cycles and size bounded)."""
    try:
        root = reader.trailer.raw_get("/Root", revision=revision)
        catalog = resolve_at(reader, root, revision)
        if not isinstance(catalog, generic.DictionaryObject) or "/Pages" not in catalog:
            return None
        pages: list[generic.Reference] = []
        seen: set[generic.Reference] = set()
        stack: list[object] = [catalog.raw_get("/Pages")]
        while stack and len(seen) < limit:
            item = stack.pop()
            if not isinstance(item, generic.IndirectObject) or item.reference in seen:
                return None  # a direct or repeated node: not a tree we can compare
            seen.add(item.reference)
            node = resolve_at(reader, item, revision)
            if not isinstance(node, generic.DictionaryObject):
                return None
            if node.get("/Type") == "/Page" or "/Kids" not in node:
                pages.append(item.reference)
                continue
            kids = resolve_at(reader, node.raw_get("/Kids"), revision)
            if not isinstance(kids, generic.ArrayObject):
                return None
            stack += [kids.raw_get(i) for i in reversed(range(len(kids)))]
        return pages
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - hostile input: an unreadable tree compares as unknown
        return None


def resolve_at(reader: PdfFileReader, value: object, revision: int) -> object:
    if isinstance(value, generic.IndirectObject):
        return reader.get_object(value.reference, revision=revision)
    return value
