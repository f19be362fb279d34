import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from templates_app.detection import detect_limits
from templates_app.engine.describe import field_info
from templates_app.engine.detect_fields import detect_fields
from templates_app.engine.errors import ImportRefused


def page_numbers(text: str, *, limit: int) -> list[int]:
    """``"1,3-4"`` (pages as people count them) -> [0, 2, 3]; at most ``limit`` pages, refused
    before a range such as ``1-1000000000000`` is spelled out in memory."""
    pages: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        try:
            start, end = int(first), int(last or first)
        except ValueError:
            raise CommandError(f"--pages: {part.strip()!r} is not a page or range.") from None
        if start < 1 or end < start:
            raise CommandError(f"--pages: {part.strip()!r} is not a page or range.")
        if len(pages) + end - start + 1 > limit:
            raise CommandError(f"--pages: at most {limit} pages at once.")
        pages.extend(range(start - 1, end))
    return pages


class Command(BaseCommand):
    help = (
        "Find the fields of a flat PDF (boxes, lines, combs, checkboxes, signature lines) and "
        "print them as the template's fieldInfo JSON (id, alias, type, pageNum, rect...), as "
        "an imported template's: nothing is saved."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("pdf_path", type=Path)
        parser.add_argument("--pages", help="Pages to look at, from 1: 1,3-4 (default: all).")

    def handle(self, *args: object, pdf_path: Path, pages: str | None, **options: object) -> None:
        try:
            pdf = pdf_path.read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {pdf_path}: {exc.strerror}") from None
        except ValueError:  # the operating system takes no NUL in a path
            raise CommandError(
                f"Cannot read {str(pdf_path)!r}: the path holds a NUL character."
            ) from None
        limits = detect_limits()
        wanted = page_numbers(pages, limit=limits.max_pages) if pages else None
        try:
            spec = detect_fields(pdf, pages=wanted, limits=limits)
        except ImportRefused as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(field_info(spec), indent=2))
