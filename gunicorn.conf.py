"""The production server: gunicorn with threaded workers (``gunicorn -c gunicorn.conf.py``).

gunicorn reads this file by itself when started in this directory. Any setting here can be
overridden on the command line (``-b 0.0.0.0:8000``, ``-w 4``). The numbers follow the
service's own limits, read from the same environment as the application (config/settings.py):

- **Threaded workers.** A generate request spends its time waiting for a render worker process
  (generate.engine.pool), and a fill waits on image fetches: a web thread only waits, so one
  process serves many requests at once, and a long document never holds a whole process. The
  render pool bounds how many generate requests wait (``GENERATE_MAX_WAITING``), so threads stay
  free for fills.
- **Timeouts above every cap.** A generate may wait ``GENERATE_QUEUE_TIMEOUT_SECONDS`` for a
  render worker and then render for ``GENERATE_WALL_TIMEOUT_SECONDS`` at most; its 422 or 503
  comes back in JSON before any server timeout. With threads, gunicorn's ``timeout`` only
  restarts a worker process that stops answering the arbiter (a wedged process), never a slow
  request; it is set above the caps anyway, and so is the grace given to requests in flight at
  a restart. A reverse proxy in front needs a read timeout above ``timeout`` too.
- **No credentials in the access log.** gunicorn's default format logs the Basic-auth user
  name, which is the API key. This format has no ``%(u)s``, and logs the path without its query.
- **JSON errors.** Requests gunicorn refuses itself (a request line over 4094 bytes: 414,
  headers too large: 431, malformed: 400) are answered in the API's wire shape
  (config.gunicorn_worker).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from config import settings as app

wsgi_app = "config.wsgi:application"
bind = [f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"]

# Processes and threads per process. Each process starts up to GENERATE_WORKERS render workers.
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "16"))
worker_class = "config.gunicorn_worker.JsonErrorThreadWorker"

# The longest a request may take by the service's own caps: a generate's wait and render.
_longest_request = app.GENERATE_QUEUE_TIMEOUT_SECONDS + app.GENERATE_WALL_TIMEOUT_SECONDS
timeout = int(_longest_request) + 30
graceful_timeout = timeout
keepalive = 5
# A process is replaced after this many requests (with jitter, so not all at once): whatever
# slowly grows in a long-lived process (caches, fragmentation) is given back.
max_requests = 5000
max_requests_jitter = 500
# The arbiter's heartbeat files in memory, not on a disk that may stall.
if Path("/dev/shm").is_dir():  # noqa: S108 - a directory gunicorn owns files in, by design
    worker_tmp_dir = "/dev/shm"  # noqa: S108

# gunicorn's control socket (gunicornc) is not used; several servers on one machine (tests,
# benchmarks) would share its default path.
control_socket_disable = True

accesslog = "-"
access_log_format = (
    '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms "%(a)s" %({x-request-id}o)s'
)
# Prometheus metrics (config.metrics): every server process writes its values into one folder,
# and a scrape answered by any of them sums them all. A fresh folder per server start unless
# PROMETHEUS_MULTIPROC_DIR names one (which must then be emptied before each start).
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="docautomation-metrics-")


def post_fork(server: object, worker: Any) -> None:
    """A server process that crashes in native code (SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL)
    writes every thread's Python stack to the error log first: without it the log says only
    that the worker was sent SIGSEGV, and which request in which library did it is lost."""
    import faulthandler

    faulthandler.enable(all_threads=True)


def child_exit(server: object, worker: Any) -> None:
    """A server process that ended no longer counts in the live gauges (the render pool)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
