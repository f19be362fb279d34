"""An image uploaded on a webform page, made the value of its image field: refused by the size
its header declares before anything decodes it, decoded and scaled in an image worker
(workflows.engine.image_pool) when it must be, never in the web process.

The pool's settings are ``IMAGE_WORKERS``, ``IMAGE_WORKER_MEMORY_MB`` and the rest of
core.pools' scheme; ``IMAGE_TIMEOUT_SECONDS`` and ``IMAGE_QUEUE_TIMEOUT_SECONDS`` bound one job
and its wait for a worker. Each way an image is not taken is a marker value (rules), which the
image rule turns into the message beside the field.
"""

from __future__ import annotations

import base64
import logging

from core.pools import SettingsPool
from workflows.engine.image_pool import FitJob, ImageBusy, ImageNotProcessed, ImagePool
from workflows.engine.photos import TOO_LARGE, kept_as_is, photo_refusal
from workflows.engine.rules import (
    IMAGE_MAX_BYTES,
    IMAGE_UPLOAD_BUSY,
    IMAGE_UPLOAD_NOT_PROCESSED,
    IMAGE_UPLOAD_TOO_LARGE,
    IMAGE_UPLOAD_UNREADABLE,
)

logger = logging.getLogger(__name__)

# An image worker is replaced after this many images, or when it holds more than this after one
# (Python and Pillow keep what a large image made them allocate).
WORKER_MAX_JOBS = 200
WORKER_RECYCLE_BYTES = 200 * 1_048_576


def uploaded_image_value(data: bytes, mime: str) -> str:
    """The value of an image field for an upload of type ``mime``: the data: URL of the image
    made small enough for the field, or the marker of why it was not taken."""
    refusal = photo_refusal(data, mime)
    if refusal is not None:
        return IMAGE_UPLOAD_TOO_LARGE if refusal == TOO_LARGE else IMAGE_UPLOAD_UNREADABLE
    # Small enough as it is: checked without decoding, no worker needed.
    fitted = kept_as_is(data, mime, max_bytes=IMAGE_MAX_BYTES)
    if fitted is None:
        try:
            fitted = _pool.run(FitJob(data=data, mime=mime, max_bytes=IMAGE_MAX_BYTES))
        except ImageBusy as error:
            logger.warning("image upload not fitted, busy: %s", error.log_detail)
            return IMAGE_UPLOAD_BUSY
        except ImageNotProcessed as error:
            logger.info("image upload not fitted: %s", error.log_detail)
            return IMAGE_UPLOAD_NOT_PROCESSED
    if fitted is None:
        return IMAGE_UPLOAD_UNREADABLE
    return f"data:{fitted.mime};base64,{base64.b64encode(fitted.data).decode()}"


_pool = SettingsPool(
    ImagePool, "IMAGE", max_jobs=WORKER_MAX_JOBS, recycle_rss_bytes=WORKER_RECYCLE_BYTES
)


def image_pool() -> ImagePool:
    """This process's image pool (IMAGE_WORKERS, IMAGE_WORKER_MEMORY_MB: core.pools)."""
    return _pool.get()
