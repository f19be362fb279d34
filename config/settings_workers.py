"""Work on a document done in confined worker processes, never in the web process: field
detection, the checks of uploaded files, office documents' conversion to PDF. Generate's render
workers are in config.settings, verification's in config.settings_esign, the webform images' in
config.settings_public_pages.
"""

from config.settings_environment import env

# Field detection on a template's flat pages (the editor's "Detect fields", manage.py
# detect_fields): at most DETECT_MAX_PAGES pages at once, each drawn at DETECT_DPI and at most
# DETECT_MAX_PIXELS (a larger page is drawn smaller). From the web it runs in worker processes
# (templates_app.engine.detect_pool), each within an address-space limit and a deadline.
DETECT_MAX_PAGES = env.int("DETECT_MAX_PAGES", default=50)
DETECT_DPI = env.float("DETECT_DPI", default=144.0)
DETECT_MAX_PIXELS = env.int("DETECT_MAX_PIXELS", default=12_000_000)
DETECT_WORKERS = env.int("DETECT_WORKERS", default=1)
DETECT_WORKER_MEMORY_MB = env.int("DETECT_WORKER_MEMORY_MB", default=1024)
DETECT_TIMEOUT_SECONDS = env.float("DETECT_TIMEOUT_SECONDS", default=60.0)
DETECT_QUEUE_TIMEOUT_SECONDS = env.float("DETECT_QUEUE_TIMEOUT_SECONDS", default=10.0)

# Uploads a parser must open to check (a bulk send's XLSX, a signer's attached PDF) are opened in
# upload-check worker processes (esign.upload_checks), never in the web process: at most
# UPLOAD_CHECK_WORKERS at once per server process, each within an address-space limit and a
# deadline (the file is refused past either); a request waits UPLOAD_CHECK_QUEUE_TIMEOUT_SECONDS
# for a worker (503). The two times together bound the answer: under 10 s.
UPLOAD_CHECK_WORKERS = env.int("UPLOAD_CHECK_WORKERS", default=2)
UPLOAD_CHECK_WORKER_MEMORY_MB = env.int("UPLOAD_CHECK_WORKER_MEMORY_MB", default=512)
UPLOAD_CHECK_TIMEOUT_SECONDS = env.float("UPLOAD_CHECK_TIMEOUT_SECONDS", default=6.0)
UPLOAD_CHECK_QUEUE_TIMEOUT_SECONDS = env.float("UPLOAD_CHECK_QUEUE_TIMEOUT_SECONDS", default=2.0)
# Office documents (DOCX, ODT, RTF, XLSX, ODS, PPTX) are taken wherever a PDF is (a template's
# upload, a packet's file) and converted to PDF by LibreOffice (core.office, core.engine.office):
# at most OFFICE_CONVERT_WORKERS at once per server process, each confined, within 1 GB of
# address space and killed past OFFICE_CONVERT_TIMEOUT seconds (the document refused, 400); a
# request waits as long for a converter (503 past it).
OFFICE_CONVERT_WORKERS = env.int("OFFICE_CONVERT_WORKERS", default=2)
OFFICE_CONVERT_TIMEOUT = env.float("OFFICE_CONVERT_TIMEOUT", default=20.0)
