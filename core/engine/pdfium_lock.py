"""The one lock around pdfium in a process.

pdfium (through pypdfium2) is not thread-safe, not even for two different documents: it keeps
process-wide state. The web server runs requests in threads (gunicorn.conf.py), and two of them
reach pdfium at once when a signer's page pictures are drawn (esign.engine.pages) while another
request reads an upload's text tags (templates_app.engine.text_tags): without one lock for both,
a 1,000-packet burst (bench/burst.py) crashed a web process with SIGSEGV, taking the requests of
all its threads with it.

Every call into pdfium is made holding ``PDFIUM``, and that includes closing its objects: pypdfium2
closes a document, page, text page or bitmap when the object is garbage-collected, which happens in
whatever thread drops the last reference. So each use closes what it opened, explicitly, before it
lets go of the lock, and keeps nothing of pdfium's after (a PIL image made from a bitmap shares the
bitmap's memory until it is copied). The detection workers (templates_app.engine.detect_pool) are
processes of one thread each and do not need it.
"""

from __future__ import annotations

import threading

PDFIUM = threading.Lock()
