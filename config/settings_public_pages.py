"""What the public pages take from anyone holding a link: a signer's finish and attachments,
a webform page's post and its images (decoded in image workers), and how long a webform's
continue link works.
"""

from config.settings_environment import env

# --- Public writes: signing and webform pages (owned by esign/ and workflows/) -----------------
# A signer's finish (POST /api/etch/sign/<eid>/complete, JSON): the whole body, refused (413)
# before it is read; the drawn signature (a PNG, sent as a data URL); each typed value, in
# characters, by its field's type (text and long text; a name; an email; a date).
SIGNING_BODY_MAX_BYTES = env.int("SIGNING_BODY_MAX_BYTES", default=2 * 1_048_576)
SIGNING_SIGNATURE_MAX_BYTES = env.int("SIGNING_SIGNATURE_MAX_BYTES", default=512 * 1024)
SIGNING_TEXT_MAX_CHARS = env.int("SIGNING_TEXT_MAX_CHARS", default=1000)
SIGNING_NAME_MAX_CHARS = env.int("SIGNING_NAME_MAX_CHARS", default=255)
# A file a signer attaches (an attachment field, esign.signing.attachments): at most this many bytes
# (a field's own maxBytes may ask for less), refused (413) unread past it.
ESIGN_ATTACHMENT_MAX_BYTES = env.int("ESIGN_ATTACHMENT_MAX_BYTES", default=10 * 1_048_576)
# An attached PDF is checked in an upload-check worker before anything parses it: at most this
# many pages (as its page tree names them, a page named twice counted twice), objects (present
# or declared) and bytes of its streams once decoded (images are not decoded); refused past one.
ESIGN_ATTACHMENT_MAX_PDF_PAGES = env.int("ESIGN_ATTACHMENT_MAX_PDF_PAGES", default=1000)
ESIGN_ATTACHMENT_MAX_PDF_OBJECTS = env.int("ESIGN_ATTACHMENT_MAX_PDF_OBJECTS", default=100_000)
ESIGN_ATTACHMENT_MAX_PDF_DECODED_BYTES = env.int(
    "ESIGN_ATTACHMENT_MAX_PDF_DECODED_BYTES", default=256 * 1_048_576
)
# A public webform page's post (/form/...): its fields and framing, plus one image file of at
# most WEBFORM_IMAGE_UPLOAD_MAX_BYTES (the spec's 10 MB) for each image field of the page with
# the most; a larger Content-Length is refused (413) unread, a file growing past its cap while
# read stops the reading (413). Uploads stay in memory. An image is then kept only up to the
# field's own limit (72 KB, workflows.engine.rules), with a message beside the field.
WEBFORM_FIELDS_MAX_BYTES = env.int("WEBFORM_FIELDS_MAX_BYTES", default=2 * 1_048_576)
WEBFORM_IMAGE_UPLOAD_MAX_BYTES = env.int("WEBFORM_IMAGE_UPLOAD_MAX_BYTES", default=10 * 1_048_576)
# An uploaded image that must be decoded to fit its field (workflows.pages.images) is decoded
# and scaled in an image worker process, never in the web process: at most IMAGE_WORKERS at once
# per server process, each within an address-space limit and a deadline (a message beside the
# field past either); a page waits IMAGE_QUEUE_TIMEOUT_SECONDS for a worker. Images that declare
# too many pixels are refused before any of this (workflows.engine.photos).
IMAGE_WORKERS = env.int("IMAGE_WORKERS", default=2)
IMAGE_WORKER_MEMORY_MB = env.int("IMAGE_WORKER_MEMORY_MB", default=512)
IMAGE_TIMEOUT_SECONDS = env.float("IMAGE_TIMEOUT_SECONDS", default=20.0)
IMAGE_QUEUE_TIMEOUT_SECONDS = env.float("IMAGE_QUEUE_TIMEOUT_SECONDS", default=5.0)
# Days a webform's continue link works (each link handed out counts from when it was made).
WORKFLOW_CONTINUE_LINK_DAYS = env.int("WORKFLOW_CONTINUE_LINK_DAYS", default=30)
