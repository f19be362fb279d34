"""Image work in worker processes: an uploaded photo is decoded and scaled for its field
(`photos.fit_image`) outside the server process, within an address-space limit and a deadline
(`core.engine.process_pool`, as generate's renders and esign's verifications are).

``photos.photo_refusal`` refuses what declares too many pixels before anything is decoded; what
passes can still cost a decode of up to 16 MP (a PNG) or a progressive JPEG's coefficients, and
its scaling. Here running out of memory or time costs a worker (killed and replaced), never the
server, and a web process only holds the upload and the fitted result (72 KB at most).

A job carries the upload's bytes and the type it claims; the result is a `photos.Fitted`, or
None when the bytes are not a readable image of that type.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.engine.problems import EngineError, WorkersBusy
from core.engine.process_pool import PoolErrors, PoolSettings, ProcessPool
from workflows.engine.photos import Fitted

WORKER_MODULE = __name__.rsplit(".", 1)[0] + ".image_worker"


@dataclass(frozen=True)
class FitJob:
    """One upload to fit, complete: it is pickled to a worker process as it is."""

    data: bytes
    mime: str
    max_bytes: int


class ImageBusy(WorkersBusy):
    """Every image worker stayed busy for as long as a request may wait for one."""

    code = "image_busy"
    workers = "an image worker"
    message = "Every image worker is busy; try again shortly."


class ImageNotProcessed(EngineError):
    """The image could not be fitted within the worker's limits; ``log_detail`` says which."""

    code = "image_not_processed"
    kind = "unprocessable"

    def __init__(self, log_detail: str) -> None:
        self.log_detail = log_detail
        super().__init__("The image could not be processed.")


def _timeout(seconds: float) -> ImageNotProcessed:
    return ImageNotProcessed(f"the image took longer than {seconds:g} s and was stopped")


def _out_of_memory(limit_bytes: int) -> ImageNotProcessed:
    return ImageNotProcessed(f"the image needed more than {limit_bytes / 2**20:g} MB")


def _crashed(detail: str, where: str | None = None) -> ImageNotProcessed:
    return ImageNotProcessed(f"the image worker failed: {detail}")


IMAGE_ERRORS = PoolErrors(
    busy=ImageBusy,
    timeout=_timeout,
    out_of_memory=_out_of_memory,
    crashed=_crashed,
)


class ImagePool(ProcessPool[FitJob, Fitted | None]):
    """Runs `FitJob`s in image workers. ``run`` returns the `Fitted` image (None: not a readable
    image of its type), or raises ImageBusy or ImageNotProcessed (past the worker's memory or
    time, or the worker died)."""

    def __init__(self, settings: PoolSettings) -> None:
        super().__init__(settings, worker_module=WORKER_MODULE, errors=IMAGE_ERRORS, name="image")
