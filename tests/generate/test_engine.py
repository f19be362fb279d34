"""The generate engine on its own: no database, no Django request, `now` and fonts injected."""

from __future__ import annotations

import base64
import datetime
import io
import pickle
import threading
import time
from pathlib import Path

import pytest
from PIL import Image

from core.engine.fetch import FetchPolicy
from generate.engine import (
    ElementLimitExceeded,
    GenerateInvalid,
    PageLimitExceeded,
    PoolSettings,
    RenderBusy,
    RenderCrashed,
    RenderFailed,
    RenderJob,
    RenderOutOfMemory,
    RenderPool,
    RenderTimeout,
    RenderUnavailable,
    ResourceFetcher,
    ResourceRefused,
    SourceTooLarge,
    TableCellLimitExceeded,
    build_render_job,
    parse_generate_request,
)
from generate.engine.lengths import Length, LengthError, parse_length, parse_margin_shorthand
from generate.engine.markdown_doc import build_markdown_html
from generate.engine.render import describe_failure, render_pdf
from generate.engine.request import Logo, PageSettings
from generate.engine.resources import Resource
from tests.fixtures import HTML
from tests.generate.conftest import page_texts, reader

NOW = datetime.datetime(2026, 11, 22, 10, 31, 45, tzinfo=datetime.UTC)
PACIFICO = HTML / "weasyprint-letter" / "fonts" / "Pacifico-Regular.ttf"


def no_fonts_missing(name: str) -> str | None:
    return (
        None if name in ("Noto Sans", "Courier", "Fira Sans") else f'Unknown font family "{name}".'
    )


def parse(body: dict[str, object], max_source_bytes: int = 10_000_000):  # noqa: ANN201
    return parse_generate_request(
        body, font_check=no_fonts_missing, max_source_bytes=max_source_bytes
    )


def fetcher(**kwargs: object) -> ResourceFetcher:
    return ResourceFetcher(
        policy=FetchPolicy(allowed_content_types=("image/", "text/css", "font/ttf")), **kwargs
    )  # type: ignore[arg-type]


def job_for(body: dict[str, object], **kwargs: object) -> RenderJob:
    options = {"watermark": False, "max_pages": 100, **kwargs}
    return build_render_job(
        parse(body),
        now=NOW,
        fetcher=fetcher(),
        font_css=lambda family: "",
        default_logo_url="file:///nonexistent/logo.svg",
        **options,  # type: ignore[arg-type]
    )


# -- lengths ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "inches"),
    [("8.5in", 8.5), ("215.9mm", 8.5), ("21.59cm", 8.5), ("816px", 8.5), ("612pt", 8.5), ("51pc", 8.5),
     ("51em", 8.5), ("51rem", 8.5), (".5IN", 0.5), ("0", 0.0), (" 2in ", 2.0)],
)  # fmt: skip
def test_lengths_in_the_allowed_units(text, inches) -> None:
    assert parse_length(text).inches == pytest.approx(inches)


@pytest.mark.parametrize(
    "text", ["8.5", "-1in", "1vw", "10%", "1 in", "in", "", "1e3px", "calc(1in)", "1in 2in"]
)
def test_other_lengths_are_refused(text) -> None:
    with pytest.raises(LengthError):
        parse_length(text)


def test_lengths_are_serialised_from_their_parsed_value() -> None:
    assert parse_length("08.50in").css() == "8.5in"
    assert parse_length("0mm").css() == "0"


@pytest.mark.parametrize(
    ("shorthand", "sides"),
    [
        ("1in", ("1in", "1in", "1in", "1in")),
        ("1in 2cm", ("1in", "2cm", "1in", "2cm")),
        ("1in 2cm 3mm", ("1in", "2cm", "3mm", "2cm")),
        ("1in 2cm 3mm 4pt", ("1in", "2cm", "3mm", "4pt")),
    ],
)
def test_margin_shorthand_expands_like_css(shorthand, sides) -> None:
    assert tuple(length.css() for length in parse_margin_shorthand(shorthand)) == sides


# -- the request --------------------------------------------------------------------------------


def test_defaults() -> None:
    request = parse({"data": [{"content": "x"}]})

    assert request.mode == "markdown"
    assert request.page == PageSettings()
    assert request.page.width == Length(8.5, "in")
    assert request.page.height == Length(11.0, "in")
    assert request.include_timestamp is True
    assert request.logo == "default"
    assert request.font_families == ("Noto Sans",)


def test_side_margins_override_the_shorthand_whatever_the_order() -> None:
    page = parse(
        {"data": [], "page": {"marginLeft": "3cm", "margin": "1in 2in", "pageCount": "topRight"}}
    ).page

    assert (page.margin_top.css(), page.margin_right.css(), page.margin_bottom.css(), page.margin_left.css()) == (
        "1in", "2in", "1in", "3cm",
    )  # fmt: skip
    assert page.page_count_box == "top-right"


def test_logo_sizes_default_to_200() -> None:
    assert parse({"data": [], "logo": {"src": "https://x.test/l.png"}}).logo == Logo(
        src="https://x.test/l.png", max_width=200, max_height=200
    )
    assert parse({"data": [], "logo": False}).logo is None


def test_at_most_fifty_problems_are_listed() -> None:
    with pytest.raises(GenerateInvalid) as failure:
        parse({"data": [{"table": {"rows": [[{}] * 500]}}]})

    assert len(failure.value.problems) == 50
    assert failure.value.problems[0].path == "data.0.table.rows.0.0"


def test_source_size_cap_counts_every_text() -> None:
    element = {"label": "ab", "heading": "cd", "content": "ef", "table": {"rows": [["gh", "ij"]]}}
    assert parse({"data": [element]}, max_source_bytes=10).elements

    with pytest.raises(SourceTooLarge, match="12 bytes; the limit is 10 bytes"):  # é is 2 bytes
        parse({"data": [element, {"content": "é"}]}, max_source_bytes=10)


def test_errors_survive_the_trip_from_a_worker() -> None:
    for error in (
        PageLimitExceeded(12, 10),
        RenderTimeout(2.5),
        RenderBusy(1.0),
        RenderCrashed("detail"),
        RenderUnavailable("detail"),
        RenderFailed("detail", "while writing the PDF"),
        RenderOutOfMemory(2**20),
        SourceTooLarge(5, 4),
        TableCellLimitExceeded(9, 8),
        ElementLimitExceeded(9, 8),
        GenerateInvalid.single("data", "Required"),
    ):
        copy = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
        assert type(copy) is type(error)
        assert str(copy) == str(error)


# -- the Markdown document ----------------------------------------------------------------------


def test_markdown_document_uses_injected_time_and_fonts() -> None:
    asked: list[str] = []

    def font_css(family: str) -> str:
        asked.append(family)
        return f"/* faces of {family} */"

    request = parse(
        {
            "data": [
                {"label": "<b>L</b>", "fontFamily": "Fira Sans"},
                {"content": "c", "fontFamily": "Fira Sans"},
            ]
        }
    )
    html = build_markdown_html(
        request, now=NOW, font_css=font_css, default_logo_url="file:///logo.svg"
    )

    assert asked == ["Noto Sans", "Fira Sans"]
    assert "/* faces of Fira Sans */" in html
    assert "Generated 2026-11-22 10:31 UTC" in html
    assert "&lt;b&gt;L&lt;/b&gt;" in html
    assert 'src="file:///logo.svg"' in html


def test_timestamp_uses_utc_whatever_the_zone_of_now() -> None:
    paris = datetime.timezone(datetime.timedelta(hours=1))
    html = build_markdown_html(
        parse({"data": []}), now=NOW.astimezone(paris), font_css=lambda f: "", default_logo_url=""
    )

    assert "Generated 2026-11-22 10:31 UTC" in html


# -- rendering in this process ------------------------------------------------------------------


def test_render_markdown_with_title_timestamp_and_watermark() -> None:
    job = job_for({"data": [{"heading": "Engine heading"}], "title": "Engine"}, watermark=True)
    rendered = render_pdf(job)

    text = page_texts(rendered.pdf)[0]
    assert rendered.pages == 1
    assert "Engine heading" in text
    assert "Generated 2026-11-22 10:31 UTC" in text
    assert "DEVELOPMENT" in text
    assert reader(rendered.pdf).metadata.title == "Engine"


def test_page_cap_stops_the_layout_early() -> None:
    body = "<p style='page-break-before: always'>x</p>" * 3000
    job = job_for({"type": "html", "data": {"html": body}}, max_pages=5)

    laid_out: list[None] = []
    with pytest.raises(PageLimitExceeded) as failure:
        render_pdf(job, on_page=lambda: laid_out.append(None))

    assert (failure.value.pages, failure.value.limit) == (6, 5)
    # Counted, not timed: the layout stopped at the sixth page of 3000 (a time bound failed at
    # load 16, where even five pages took 11 s).
    assert len(laid_out) == 5


def test_radio_buttons_are_listed_under_their_group_only() -> None:
    form = '<form><input type="radio" name="plan" value="a"><input type="radio" name="plan" value="b"></form>'
    pdf = render_pdf(job_for({"type": "html", "data": {"html": form}})).pdf

    acroform = reader(pdf).trailer["/Root"]["/AcroForm"]
    names = [str(field.get_object()["/T"]) for field in acroform["/Fields"]]
    assert names == ["plan"]
    assert len(acroform["/Fields"][0].get_object()["/Kids"]) == 2


def test_relative_urls_reach_the_fetcher_unresolved_and_are_skipped() -> None:
    asked: list[str] = []

    def refuse(url: str) -> Resource:
        asked.append(url)
        raise ResourceRefused("scheme_not_allowed")

    page = (
        '<link rel="stylesheet" href="style.css"><style>@import url(common.css); '
        "p { text-transform: uppercase; background: url(bg.jpg) }</style>"
        '<img src="logo.png" alt="Logo alt"><p>kept text</p>'
    )
    job = RenderJob(html=page, author_css='@import "extra.css";', fetcher=refuse, html_mode=True)
    text = page_texts(render_pdf(job).pdf)[0]

    assert "KEPT TEXT" in text
    assert "Logo alt" in text
    # Nothing is resolved against a place the service knows (a directory, a host): each reaches
    # the fetcher as written, and is refused there.
    assert sorted(asked) == ["bg.jpg", "common.css", "extra.css", "logo.png", "style.css"]


@pytest.mark.parametrize(
    ("page", "where"),
    [
        (
            "<style>\n.logo { color: red;\n  background-image: attr(data-src url) }</style>"
            '<p class="logo" data-src="https://example.com/a.png">x</p>',
            "on the CSS declaration `background-image: attr(data-src url)`",
        ),
        (
            "<style>td { position: running(c) } @page { @top-left { content: element(c) } }"
            '</style><table><tr><td class="cell  total">1</td></tr></table>',
            'while laying out a <td class="cell total"> element on page 1',
        ),
        (
            '<style>#note::after { content: "x"; letter-spacing: 1e30px }</style>'
            '<p style="break-after: page">1</p><p id="note">2</p>',
            'while laying out the ::after of a <p id="note"> element on page 2',
        ),
    ],
)
def test_a_renderer_failure_is_described_by_the_part_of_the_document(page, where) -> None:
    with pytest.raises(Exception) as failure:  # noqa: PT011 - whatever WeasyPrint raises
        render_pdf(RenderJob(html=page, fetcher=fetcher(), html_mode=True))

    assert describe_failure(failure.value) == where


def test_a_failure_outside_the_renderer_is_described_by_nothing() -> None:
    assert describe_failure(ZeroDivisionError("x")) is None


def test_jobs_pickle_for_the_trip_to_a_worker() -> None:
    job = job_for({"data": [{"content": "x"}]})

    assert pickle.loads(pickle.dumps(job)) == job  # noqa: S301 - our own bytes


# -- the resource fetcher -----------------------------------------------------------------------


def _data(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64," + base64.b64encode(data).decode()


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (255, 0, 0)).save(out, "PNG")
    return out.getvalue()


def test_files_only_from_the_allowed_roots_and_files(tmp_path: Path) -> None:
    root = tmp_path / "fonts"
    root.mkdir()
    (root / "a.ttf").write_bytes(b"\x00\x01\x00\x00font")
    (tmp_path / "logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (tmp_path / "secret.txt").write_text("secret")
    (root / "escape.ttf").symlink_to(tmp_path / "secret.txt")
    fetch = fetcher(file_roots=(str(root),), files=(str(tmp_path / "logo.svg"),))

    assert fetch((root / "a.ttf").as_uri()).content_type == "font/ttf"
    assert fetch((tmp_path / "logo.svg").as_uri()).content_type == "image/svg+xml"
    for refused in (
        (tmp_path / "secret.txt").as_uri(),
        (root / "escape.ttf").as_uri(),
        f"file://{root}/../secret.txt",
        f"file://otherhost{root}/a.ttf",
        "file:///etc/passwd",
        "ftp://example.com/a.png",
        "javascript:alert(1)",
        "relative/path.png",
    ):
        with pytest.raises(ResourceRefused):
            fetch(refused)


def test_fonts_must_be_truetype_and_fonts_never_pass_as_images() -> None:
    fetch = fetcher()
    ttf = PACIFICO.read_bytes()

    assert fetch(_data("font/ttf", ttf)).data == ttf
    with pytest.raises(ResourceRefused, match="not_truetype"):
        fetch(_data("font/ttf", b"wOFF" + ttf[4:]))
    with pytest.raises(ResourceRefused, match="font_as_image"):
        fetch(_data("image/png", ttf))
    with pytest.raises(ResourceRefused, match="bad_content_type"):
        fetch(_data("font/woff2", ttf))


def test_images_are_checked_before_the_renderer_sees_them() -> None:
    fetch = fetcher(max_pixels=10_000)

    assert fetch(_data("image/png", _png(100, 100))).content_type == "image/png"
    assert fetch(_data("image/svg+xml", b"<svg xmlns='http://www.w3.org/2000/svg'/>")).data
    with pytest.raises(ResourceRefused, match="too_many_pixels"):
        fetch(_data("image/png", _png(101, 100)))
    with pytest.raises(ResourceRefused, match="not_an_image"):
        fetch(_data("image/png", b"GIF89a but not really"))


# -- render workers -----------------------------------------------------------------------------


@pytest.fixture
def pool():  # noqa: ANN201
    pool = RenderPool(PoolSettings(workers=1, max_jobs=50))
    yield pool
    pool.close()


def _slow_job() -> RenderJob:
    rows = "".join(f"<tr><td>{i}</td><td>slow row {i}</td></tr>" for i in range(6000))
    return job_for({"type": "html", "data": {"html": f"<table>{rows}</table>"}}, max_pages=1000)


def test_pool_renders_and_reports_engine_errors(pool: RenderPool) -> None:
    rendered = pool.run(
        job_for({"data": [{"content": "In a worker"}]}), timeout=30, queue_timeout=30
    )
    assert "In a worker" in page_texts(rendered.pdf)[0]

    body = "<p style='page-break-before: always'>x</p>" * 10
    over_the_cap = job_for({"type": "html", "data": {"html": body}}, max_pages=3)
    with pytest.raises(PageLimitExceeded):
        pool.run(over_the_cap, timeout=30, queue_timeout=30)
    worker_pid = pool._idle[0].process.pid
    pool.run(job_for({"data": [{"content": "again"}]}), timeout=30, queue_timeout=30)
    assert pool._idle[0].process.pid == worker_pid  # an engine error does not cost the worker


def test_pool_kills_a_render_at_the_deadline_and_replaces_the_worker(pool: RenderPool) -> None:
    pool.run(job_for({"data": []}), timeout=30, queue_timeout=30)
    worker = pool._idle[0]

    # Not timed: RenderTimeout and a dead worker say the render was stopped, not waited for
    # (6,000 rows take far longer than the 1 s given; a render let finish leaves its worker).
    with pytest.raises(RenderTimeout):
        pool.run(_slow_job(), timeout=1.0, queue_timeout=30)

    assert not worker.is_alive()
    assert not Path(worker.temp_dir).exists()
    rendered = pool.run(job_for({"data": [{"content": "after"}]}), timeout=30, queue_timeout=30)
    assert "after" in page_texts(rendered.pdf)[0]


def test_pool_refuses_when_every_worker_stays_busy(pool: RenderPool) -> None:
    pool.run(job_for({"data": []}), timeout=30, queue_timeout=30)
    errors: list[BaseException] = []

    def busy() -> None:
        try:
            pool.run(_slow_job(), timeout=2.0, queue_timeout=30)
        except BaseException as exc:  # the expected RenderTimeout
            errors.append(exc)

    thread = threading.Thread(target=busy)
    thread.start()
    time.sleep(0.3)
    with pytest.raises(RenderBusy):
        pool.run(job_for({"data": []}), timeout=30, queue_timeout=0.3)
    thread.join()
    assert [type(e) for e in errors] == [RenderTimeout]


def test_a_worker_that_died_while_idle_is_replaced_quietly(pool: RenderPool) -> None:
    pool.run(job_for({"data": []}), timeout=30, queue_timeout=30)
    pool._idle[0].process.kill()
    pool._idle[0].process.wait()

    assert pool.run(job_for({"data": [{"content": "ok"}]}), timeout=30, queue_timeout=30).pages == 1


def test_a_worker_that_dies_during_a_render_is_reported(pool: RenderPool) -> None:
    pool.run(job_for({"data": []}), timeout=30, queue_timeout=30)
    worker = pool._idle[0]
    killer = threading.Timer(0.5, worker.process.kill)
    killer.start()

    with pytest.raises(RenderCrashed) as failure:
        pool.run(_slow_job(), timeout=30, queue_timeout=30)

    killer.join()
    assert "killed by signal 9" in failure.value.detail
    assert pool.run(job_for({"data": [{"content": "ok"}]}), timeout=30, queue_timeout=30).pages == 1
