"""One mapper turns every engine error into its wire error, by the kind the error declares."""

from __future__ import annotations

import pytest

from core.engine.fonts import FontNotFound, FontUnavailable
from core.engine.problems import EngineError, Problem
from core.errors import (
    FontUnavailableError,
    RequestTooLarge,
    ServiceBusy,
    ServiceError,
    UnprocessableDocument,
    ValidationFailed,
    raise_for_engine_error,
)
from fill.engine import FillInvalid, FillLimitExceeded
from fill.engine.errors import DataUrlsTooLarge
from generate.engine import (
    PageLimitExceeded,
    RenderBusy,
    RenderCrashed,
    RenderFailed,
    RenderOutOfMemory,
    RenderTimeout,
    RenderUnavailable,
    SourceTooLarge,
    TableCellLimitExceeded,
)
from templates_app.engine.errors import ImportRefused


def mapped(error: EngineError) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        raise_for_engine_error(error)
    return caught.value


@pytest.mark.parametrize(
    ("error", "wire", "status"),
    [
        (FillInvalid([Problem("data.name", "Must be text.")]), ValidationFailed, 400),
        (FillLimitExceeded("data", "Too many pages."), ValidationFailed, 400),
        (FontNotFound("Arail", suggestion=None), ValidationFailed, 400),
        (ImportRefused("not_pdf", "The file is not a PDF."), ValidationFailed, 400),
        (DataUrlsTooLarge("data", "Too large."), RequestTooLarge, 413),
        (SourceTooLarge(10, 5), RequestTooLarge, 413),
        (PageLimitExceeded(12, 10), UnprocessableDocument, 422),
        (RenderTimeout(60), UnprocessableDocument, 422),
        (RenderOutOfMemory(2**30), UnprocessableDocument, 422),
        (
            RenderFailed("TypeError in layout", "on the CSS rule for `td`"),
            UnprocessableDocument,
            422,
        ),
        # A worker that died while rendering: the document is the likely cause.
        (RenderCrashed("killed by signal 11"), UnprocessableDocument, 422),
        (TableCellLimitExceeded(100_000, 50_000), UnprocessableDocument, 422),
        (RenderBusy(30), ServiceBusy, 503),
        (RenderUnavailable("the render worker did not start in time"), ServiceBusy, 503),
        (FontUnavailable("Fira Sans", "timed out"), FontUnavailableError, 503),
    ],
)
def test_every_kind_maps_to_its_wire_error(error: EngineError, wire: type, status: int) -> None:
    service_error = mapped(error)

    assert type(service_error) is wire
    assert service_error.status == status


def test_invalid_errors_name_their_paths() -> None:
    problems = [Problem("data.a", "Bad."), Problem("data.b.fontSize", "Too big.")]

    assert [(f.property, f.message) for f in mapped(FillInvalid(problems)).fields] == [
        ("data.a", "Bad."),
        ("data.b.fontSize", "Too big."),
    ]
    fields = mapped(ImportRefused("damaged", "The PDF is damaged.")).fields
    assert [(f.property, f.message) for f in fields] == [("file", "The PDF is damaged.")]
    fields = mapped(FontNotFound("helvetica", suggestion="Helvetica")).fields
    assert fields[0].property == "fontFamily"
    assert 'did you mean "Helvetica"?' in fields[0].message


def test_log_details_go_to_the_log_not_the_wire(caplog: pytest.LogCaptureFixture) -> None:
    error = mapped(FontUnavailable("Fira Sans", "https://fonts.internal/x.ttf timed out"))

    assert "fonts.internal" not in error.message
    assert "fonts.internal" in caplog.text


def test_an_internal_error_is_raised_as_it_is() -> None:
    internal = EngineError("an engine's own bug")  # kind "internal" unless a subclass says

    with pytest.raises(EngineError) as caught:
        raise_for_engine_error(internal)
    assert caught.value is internal
