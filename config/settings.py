"""Settings for the whole service, read from environment variables.

Every variable has a safe development default and is documented in docs/configuration.md.
There are no per-environment settings modules: production differs only by its environment.

This is the module Django loads (DJANGO_SETTINGS_MODULE=config.settings). The settings of a few
subjects are kept in modules of their own beside it, and imported here whole:
config/settings_esign.py (sealing, the signer CA, verification, bulk sends),
settings_public_pages.py (what the signing and webform pages take), settings_workers.py (field
detection, upload checks, office conversion), settings_webhooks.py, settings_logging.py; where
they are read from (the environment, the data directory) is settings_environment.py.
"""

import os
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from config.settings_environment import BASE_DIR, DATA_DIR, env, owner_only

# Each subject's settings, all of them (none depends on a setting of another module). A topic
# module runs once per process: code that imports config.settings again under another
# environment (gunicorn.conf.py in tests/core/test_production_server.py) sees only this module's
# settings change, so the GENERATE_* settings gunicorn.conf.py reads stay here.
from config.settings_esign import *  # noqa: F403
from config.settings_logging import *  # noqa: F403
from config.settings_public_pages import *  # noqa: F403
from config.settings_webhooks import *  # noqa: F403
from config.settings_workers import *  # noqa: F403

DEBUG = env.bool("DEBUG", default=True)

_DEV_SECRET_KEY = "insecure-development-key-do-not-use-in-production"  # noqa: S105
SECRET_KEY = env.str("SECRET_KEY", default=_DEV_SECRET_KEY)
if not DEBUG and (SECRET_KEY == _DEV_SECRET_KEY or len(SECRET_KEY) < 32):
    raise ImproperlyConfigured(
        "SECRET_KEY must be set to a random value of at least 32 characters when DEBUG is off."
    )

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# The public origin of this service: links it hands out (signing URLs, downloads) start with it.
PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="http://127.0.0.1:8000").rstrip("/")

# Email (signing requests to email signers): sent by the SMTP server EMAIL_URL names, e.g.
# smtp+tls://user:password@smtp.example.com:587. Without one: with DEBUG on, kept in the database
# and read in the admin (dbmail://, core.mail.DatabaseEmailBackend); with DEBUG off, printed.
environ.Env.EMAIL_SCHEMES["dbmail"] = "core.mail.DatabaseEmailBackend"
vars().update(env.email_url("EMAIL_URL", default="dbmail://" if DEBUG else "consolemail://"))
if not DEBUG and EMAIL_BACKEND == "django.core.mail.backends.console.EmailBackend":  # noqa: F405
    # Printed emails would put live signing links (their tokens) in the server's log.
    EMAIL_BACKEND = "core.mail.RedactedConsoleEmailBackend"
DEFAULT_FROM_EMAIL = env.str(
    "DEFAULT_FROM_EMAIL", default="Document automation <noreply@localhost>"
)

# Files and folders the storage writes (documents, uploads) are the service's alone, as the
# data directory is (config.settings_environment).
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "graphene_django",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "django_tasks_db",
    "core",
    "accounts",
    "templates_app",
    "fill",
    "generate",
    "esign",
    "workflows",
    "webhooks",
    "idempotency",
    "mcp_server",
    "builders",
]

MIDDLEWARE = [
    # First, so that request latency per route counts every other middleware too.
    "config.metrics.MetricsMiddleware",
    "core.middleware.RequestIdMiddleware",
    "core.middleware.RateLimitHeadersMiddleware",
    "core.middleware.ContentSecurityPolicyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # The static files, compressed and cached for good under their hashed names (STORAGES).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session, before CommonMiddleware: pages in the reader's language, the API in one.
    "core.middleware.PageLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # Whether the sign-in pages offer single sign-on, and passwords.
                "accounts.sso.sso_context",
            ],
        },
    },
]

# SQLite in the data directory by default; DATABASE_URL=postgres://... switches to PostgreSQL.
DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{DATA_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take the write lock up front, so concurrent writers queue instead
    # of failing with "database is locked" and read-modify-write blocks are serialised.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    _sqlite_file = Path(DATABASES["default"]["NAME"])
    if DATABASES["default"]["NAME"] != ":memory:" and _sqlite_file.parent.is_dir():
        # Made here, readable by its owner only, before SQLite makes it with the umask's mode
        # (its -wal and -shm files take the database file's mode).
        os.close(os.open(_sqlite_file, os.O_CREAT | os.O_WRONLY, 0o600))
        owner_only(_sqlite_file, 0o600)
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The rate limiter's counters must be shared by every server process: the default keeps them in
# a table of the main database (core.cache.CounterDatabaseCache, atomic increments); a Redis URL
# (redis://host:6379/0) uses Django's Redis backend instead.
_rate_limit_cache = env.cache_url("RATE_LIMIT_CACHE_URL", default="dbcache://api_rate_limit_cache")
if _rate_limit_cache["BACKEND"] == "django.core.cache.backends.db.DatabaseCache":
    _rate_limit_cache["BACKEND"] = "core.cache.CounterDatabaseCache"
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "ratelimit": _rate_limit_cache,
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# What signers and webform users can read (pages, emails, the audit trail), each language named in
# itself for the pages' language menu. Each app keeps its catalogue in
# <app>/locale/<locale>/LC_MESSAGES: the .po and its compiled .mo are both committed, so any
# checkout serves every language; core.checks refuses to start when a .mo is missing or stale.
# esign.models.Language lists the same codes (a packet's or signer's ``language``).
LANGUAGES = [
    ("en", "English"),
    ("es", "Español"),
    ("fr", "Français"),
    ("de", "Deutsch"),
    ("pt-br", "Português (Brasil)"),
    ("it", "Italiano"),
    ("nl", "Nederlands"),
    ("pl", "Polski"),
    ("tr", "Türkçe"),
    ("sv", "Svenska"),
    ("uk", "Українська"),
    ("zh-hans", "简体中文"),
    ("ja", "日本語"),
    ("ko", "한국어"),
    ("ar", "العربية"),
    ("he", "עברית"),
]
# The apps' own catalogues before those of the installed packages: gettext takes the first
# catalogue that has a message, and django.contrib.auth's or DRF's "Email", "Created" (earlier in
# INSTALLED_APPS) would otherwise stand in for ours on a signer's audit trail.
LOCALE_PATHS = [BASE_DIR / "esign" / "locale", BASE_DIR / "workflows" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(DATA_DIR / "media")))
# Stored template PDFs are kept in memory after their first read, up to this many MB per process.
BLOB_CACHE_MB = env.int("BLOB_CACHE_MB", default=64)
MEDIA_URL = "media/"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # collectstatic (the run command runs it) writes each file under a hashed name, gzipped
    # beside it; WhiteNoise serves them with a year's cache lifetime (core/staticstorage.py).
    "staticfiles": {"BACKEND": "core.staticstorage.HashedStaticFilesStorage"},
}
# Every stored file (template PDFs, produced and sealed documents, signatures, kept uploads)
# goes through Django's storage API: files under MEDIA_ROOT by default, or an S3-compatible
# bucket (AWS S3, MinIO, ...) shared by every web and worker process when S3_BUCKET is set
# (django-storages; credentials from boto3's usual sources: AWS_ACCESS_KEY_ID and
# AWS_SECRET_ACCESS_KEY, a profile, an instance role).
S3_BUCKET = env.str("S3_BUCKET", default="")
if S3_BUCKET:
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": S3_BUCKET,
            "endpoint_url": env.str("S3_ENDPOINT_URL", default="") or None,
            "region_name": env.str("S3_REGION", default="") or None,
            "location": env.str("S3_PREFIX", default=""),
            "addressing_style": env.str("S3_ADDRESSING_STYLE", default="") or None,
            # Names are chosen by the service (content hashes, random names): never replace.
            "file_overwrite": False,
            # Private objects; the service serves every download itself.
            "default_acl": None,
        },
    }

# --- API edge -----------------------------------------------------------------------------------
# The spec fixes the JSON body limit of fill and generate at 1 MiB; multipart carries larger ones.
API_JSON_BODY_LIMIT = env.int("API_JSON_BODY_LIMIT", default=1_048_576)
API_MULTIPART_BODY_LIMIT = env.int("API_MULTIPART_BODY_LIMIT", default=50 * 1_048_576)
# JSON nested deeper than this (arrays and objects) is a 400 before any code walks it.
API_JSON_MAX_DEPTH = env.int("API_JSON_MAX_DEPTH", default=64)
# GraphQL queries deeper, with more aliases or selecting more fields than this are refused
# before they run (core.graphql.cost); introspection is not counted towards the depth.
GRAPHQL_MAX_DEPTH = env.int("GRAPHQL_MAX_DEPTH", default=10)
GRAPHQL_MAX_ALIASES = env.int("GRAPHQL_MAX_ALIASES", default=20)
GRAPHQL_MAX_FIELDS = env.int("GRAPHQL_MAX_FIELDS", default=300)
# GraphQL JSON bodies may carry inline base64 uploads, so they get the multipart limit.
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MULTIPART_BODY_LIMIT
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1_048_576

RATE_LIMIT_ENABLED = env.bool("RATE_LIMIT_ENABLED", default=True)
RATE_LIMIT_DEVELOPMENT = env.int("RATE_LIMIT_DEVELOPMENT", default=2)
RATE_LIMIT_PRODUCTION = env.int("RATE_LIMIT_PRODUCTION", default=40)
RATE_LIMIT_INTERVAL_MS = env.int("RATE_LIMIT_INTERVAL_MS", default=1000)
# API requests per key and day are counted in each process and written this often (accounts.usage).
API_KEY_USAGE_FLUSH_SECONDS = env.float("API_KEY_USAGE_FLUSH_SECONDS", default=5.0)
# New signing links the sender may have emailed to one signer (resendEtchSignerEmail and the
# admin's "Email a new link" together) per window; more is a 429 and sends nothing.
ESIGN_RESEND_PER_SIGNER = env.int("ESIGN_RESEND_PER_SIGNER", default=3)
ESIGN_RESEND_WINDOW_SECONDS = env.int("ESIGN_RESEND_WINDOW_SECONDS", default=3600)
# Where signers' one-time codes by SMS go (esign.links.sms): "console" (logged; development),
# "database" (kept in memory for tests to read) or "http" (a provider: POST JSON to the URL with
# the token, through core.engine.fetch's address guard).
ESIGN_SMS_BACKEND = env.str("ESIGN_SMS_BACKEND", default="console")
ESIGN_SMS_URL = env.str("ESIGN_SMS_URL", default="")
ESIGN_SMS_TOKEN = env.str("ESIGN_SMS_TOKEN", default="")
ESIGN_SMS_TIMEOUT_SECONDS = env.float("ESIGN_SMS_TIMEOUT_SECONDS", default=10.0)
# Submissions one client address may start on a public webform per window; more get 429 and
# nothing is stored (workflows.submissions.limit).
WEBFORM_NEW_SUBMISSIONS_PER_ADDRESS = env.int("WEBFORM_NEW_SUBMISSIONS_PER_ADDRESS", default=20)
WEBFORM_NEW_SUBMISSIONS_WINDOW_SECONDS = env.int(
    "WEBFORM_NEW_SUBMISSIONS_WINDOW_SECONDS", default=3600
)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": ["accounts.ratelimit.ApiKeyRateThrottle"],
    "DEFAULT_PARSER_CLASSES": ["core.parsers.ApiJSONParser", "core.parsers.ApiMultiPartParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.negotiation.JsonOnlyNegotiation",
    "EXCEPTION_HANDLER": "core.api_errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# The OpenAPI document of the REST API (core/openapi.py), at /api/openapi.json and /api/docs
# (Swagger UI from drf-spectacular-sidecar's files: no CDN). Readable without an API key.
SPECTACULAR_SETTINGS = {
    "TITLE": "Document automation API",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # 3.1: schemas are JSON Schema 2020-12 (["string", "null"] rather than "nullable").
    "OAS_VERSION": "3.1.0",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # An eid in a path (core.eids.EidConverter) is described with its shape, so that clients
    # and fuzzers send ids that reach the view (tests/core/test_api_fuzz.py checks it is the same).
    "PATH_CONVERTER_OVERRIDES": {"eid": {"type": "string", "pattern": "^[0-9A-Za-z]{20}$"}},
    "PREPROCESSING_HOOKS": ["core.openapi.rest_endpoints_only"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.openapi.describe_document",
        "config.openapi_graphql.add_graphql_section",  # the GraphQL operations, after it
        "idempotency.openapi.document_idempotency_key",  # the Idempotency-Key header
    ],
}

# --- Outbound fetches and fonts -----------------------------------------------------------------
# URLs named by request data (images, CSS fonts, logos) go through core.engine.fetch, which refuses
# private and loopback addresses unless allowed here (tests, intranet deployments).
FETCH_ALLOW_HOSTS = env.list("FETCH_ALLOW_HOSTS", default=[])
FETCH_ALLOW_NETWORKS = env.list("FETCH_ALLOW_NETWORKS", default=[])
FETCH_DEADLINE_SECONDS = env.float("FETCH_DEADLINE_SECONDS", default=2.0)
FETCH_IMAGE_MAX_BYTES = env.int("FETCH_IMAGE_MAX_BYTES", default=10 * 1024 * 1024)
FONT_CACHE_DIR = Path(env.str("FONT_CACHE_DIR", default=str(DATA_DIR / "fonts")))
FONT_CATALOG_BASE_URL = env.str("FONT_CATALOG_BASE_URL", default="https://fonts.gstatic.com/")
FONT_DOWNLOAD_DEADLINE_SECONDS = env.float("FONT_DOWNLOAD_DEADLINE_SECONDS", default=20.0)
FONT_DOWNLOAD_MAX_BYTES = env.int("FONT_DOWNLOAD_MAX_BYTES", default=40 * 1024 * 1024)

# Inbound payload encryption: organizations' private keys are stored encrypted with a key derived
# from this secret (default: SECRET_KEY). Changing it makes stored private keys unreadable.
PAYLOAD_KEY_SECRET = env.str("PAYLOAD_KEY_SECRET", default=SECRET_KEY)
# Secrets the service must read back to use (webhook signing secrets and tokens) are stored
# encrypted with the first of these keys, and read with any of them: to rotate, put a new key
# first and keep the old one after it (core.fields.EncryptedTextField). Default: SECRET_KEY.
FIELD_ENCRYPTION_KEYS = env.list("FIELD_ENCRYPTION_KEYS", default=[SECRET_KEY])

# --- Admin sign-in and HTTPS (accounts.login_guard) ---------------------------------------------
# After this many failed sign-ins a user name (from any address), or an address (for any name),
# is refused until the count, which starts at the first failure, expires.
ADMIN_LOGIN_FAILURE_LIMIT = env.int("ADMIN_LOGIN_FAILURE_LIMIT", default=5)
ADMIN_LOGIN_ADDRESS_FAILURE_LIMIT = env.int("ADMIN_LOGIN_ADDRESS_FAILURE_LIMIT", default=20)
ADMIN_LOGIN_LOCKOUT_SECONDS = env.int("ADMIN_LOGIN_LOCKOUT_SECONDS", default=900)

# Single sign-on through an OpenID Connect provider (accounts/sso.py, docs/configuration.md):
# off until SSO_OIDC_ISSUER is set. The provider's endpoints come from its discovery document.
SSO_OIDC_ISSUER = env.str("SSO_OIDC_ISSUER", default="").rstrip("/")
SSO_OIDC_CLIENT_ID = env.str("SSO_OIDC_CLIENT_ID", default="")
SSO_OIDC_CLIENT_SECRET = env.str("SSO_OIDC_CLIENT_SECRET", default="")
SSO_OIDC_SCOPES = env.str("SSO_OIDC_SCOPES", default="openid email profile")
SSO_OIDC_TIMEOUT_SECONDS = env.float("SSO_OIDC_TIMEOUT_SECONDS", default=10.0)
# Where a new person lands: the organization their email's domain names, else SSO_ORGANIZATION;
# their role from the SSO_ROLE_CLAIM claim when it lists owner, admin or member, else SSO_ROLE.
SSO_ORGANIZATION = env.str("SSO_ORGANIZATION", default="")
SSO_ORGANIZATIONS_BY_DOMAIN = env.dict("SSO_ORGANIZATIONS_BY_DOMAIN", default={})
SSO_ROLE = env.str("SSO_ROLE", default="member")
SSO_ROLE_CLAIM = env.str("SSO_ROLE_CLAIM", default="")
SSO_EMAIL_DOMAINS = env.list("SSO_EMAIL_DOMAINS", default=[])
SSO_STAFF_GROUP = env.str("SSO_STAFF_GROUP", default="")
SSO_PASSWORD_LOGIN = env.bool("SSO_PASSWORD_LOGIN", default=True)
SSO_BUTTON_LABEL = env.str("SSO_BUTTON_LABEL", default="Sign in with single sign-on")
if SSO_OIDC_ISSUER and not (SSO_OIDC_CLIENT_ID and SSO_OIDC_CLIENT_SECRET):
    raise ImproperlyConfigured(
        "SSO_OIDC_ISSUER needs SSO_OIDC_CLIENT_ID and SSO_OIDC_CLIENT_SECRET."
    )
if SSO_ROLE not in ("owner", "admin", "member"):
    raise ImproperlyConfigured("SSO_ROLE must be owner, admin or member.")
# Passwords (the admin's and members' forms), then the provider (a sign-in with ?code= only).
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "accounts.sso.SsoBackend",
]
# Behind a reverse proxy every client has the proxy's address: trust the last X-Forwarded-For entry.
TRUST_X_FORWARDED_FOR = env.bool("TRUST_X_FORWARDED_FOR", default=False)
# Served over https (through a TLS-terminating proxy that sets X-Forwarded-Proto): cookies only
# over https, HSTS, and requests the proxy marks https are https.
if PUBLIC_BASE_URL.startswith("https://"):
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)

# --- Fill (owned by fill/) ----------------------------------------------------------------------
# Caps on one fill request: a clear 400 above them instead of an unbounded document.
FILL_MAX_PAGES = env.int("FILL_MAX_PAGES", default=2000)
FILL_MAX_ARRAY_LENGTH = env.int("FILL_MAX_ARRAY_LENGTH", default=10_000)
FILL_MAX_DOCUMENTS = env.int("FILL_MAX_DOCUMENTS", default=1000)
# The spec: data: URLs in one fill payload may total 100k (decoded bytes); more is a 413.
FILL_MAX_DATA_URL_BYTES = env.int("FILL_MAX_DATA_URL_BYTES", default=100 * 1024)
# One deadline for all the images named by URL in one fill; those not loaded by then are left out.
FILL_IMAGE_DEADLINE_SECONDS = env.float("FILL_IMAGE_DEADLINE_SECONDS", default=10.0)
# A filled PDF is the template's bytes with an incremental update appended where that is sound
# (docs/fill.md); false writes every filled PDF whole, as before (bench/fill.py compares both).
FILL_INCREMENTAL_UPDATE = env.bool("FILL_INCREMENTAL_UPDATE", default=True)

# --- Generate (owned by generate/) --------------------------------------------------------------
# POST /api/v1/generate-pdf renders in worker processes. A render is stopped past its CPU-time
# budget (a base plus an allowance per page laid out: what a document costs, however busy the
# host), or, as a backstop, when its wall-clock time runs out (its worker is killed).
GENERATE_MAX_PAGES = env.int("GENERATE_MAX_PAGES", default=2000)
GENERATE_TIMEOUT_SECONDS = env.float("GENERATE_TIMEOUT_SECONDS", default=60.0)
GENERATE_TIMEOUT_SECONDS_PER_PAGE = env.float("GENERATE_TIMEOUT_SECONDS_PER_PAGE", default=1.0)
GENERATE_WALL_TIMEOUT_SECONDS = env.float("GENERATE_WALL_TIMEOUT_SECONDS", default=900.0)
# An asynchronous job's PDF (POST /api/v1/generate-pdf?async=true) is kept this long once done.
GENERATE_JOB_RETENTION_SECONDS = env.int("GENERATE_JOB_RETENTION_SECONDS", default=86400)
GENERATE_QUEUE_TIMEOUT_SECONDS = env.float("GENERATE_QUEUE_TIMEOUT_SECONDS", default=30.0)
GENERATE_MAX_SOURCE_BYTES = env.int("GENERATE_MAX_SOURCE_BYTES", default=10 * 1_048_576)
# Table cells and elements, counted in the HTML (Markdown once converted) before any worker lays
# it out (422 past one; 0: no limit): each costs about 1 ms of CPU and 16 KB held until the PDF
# is written, so these keep a document within the CPU budget and GENERATE_WORKER_MEMORY_MB.
GENERATE_MAX_TABLE_CELLS = env.int("GENERATE_MAX_TABLE_CELLS", default=50_000)
GENERATE_MAX_ELEMENTS = env.int("GENERATE_MAX_ELEMENTS", default=80_000)
GENERATE_WORKERS = env.int("GENERATE_WORKERS", default=2)
GENERATE_WORKER_MAX_JOBS = env.int("GENERATE_WORKER_MAX_JOBS", default=200)
GENERATE_WORKER_MEMORY_MB = env.int("GENERATE_WORKER_MEMORY_MB", default=2048)
# Fairness and memory of the render workers (generate.engine.pool): one organization renders at
# most this many documents at once per server process, so it never holds every worker ...
GENERATE_MAX_JOBS_PER_ORGANIZATION = env.int(
    "GENERATE_MAX_JOBS_PER_ORGANIZATION", default=max(1, GENERATE_WORKERS - 1)
)
# ... at most this many requests wait for a worker (more get 503 at once) ...
GENERATE_MAX_WAITING = env.int("GENERATE_MAX_WAITING", default=GENERATE_WORKERS)
# ... a worker left holding more than this after a document is replaced ...
GENERATE_WORKER_RECYCLE_MB = env.int("GENERATE_WORKER_RECYCLE_MB", default=400)
# ... and workers run at this much lower CPU priority than the server's threads.
GENERATE_WORKER_NICE = env.int("GENERATE_WORKER_NICE", default=10)
# A long table renders in parts on several workers at once (generate.engine.parts): documents of
# at least this many bytes of HTML (0: never), at most about this many pages in one part.
GENERATE_PARTS_MIN_BYTES = env.int("GENERATE_PARTS_MIN_BYTES", default=100_000)
GENERATE_PART_PAGES = env.int("GENERATE_PART_PAGES", default=120)
# Render workers a server process keeps started ahead of requests, from its first generate on,
# a worker replaced after a heavy document included (at most GENERATE_WORKERS; 0: started on
# demand): a long document then finds the workers its parts need idle.
GENERATE_WORKERS_WARM = env.int("GENERATE_WORKERS_WARM", default=GENERATE_WORKERS)

# --- Background tasks ---------------------------------------------------------------------------
# Django's tasks API through the django-tasks backport (django.tasks from Django 6). By default a
# task is a row in the main database that `manage.py db_worker` processes claim and run;
# TASKS_BACKEND=immediate runs it in the process that enqueued it, right after the commit.
# Enqueue with core.background (in the transaction; retries with delays).
_TASKS_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django_tasks.backends.immediate.ImmediateBackend",
}
_tasks_backend = env.str("TASKS_BACKEND", default="database")
if _tasks_backend not in _TASKS_BACKENDS:
    raise ImproperlyConfigured(
        f"TASKS_BACKEND must be one of {', '.join(_TASKS_BACKENDS)} (got {_tasks_backend!r})."
    )
TASKS = {
    "default": {
        "BACKEND": _TASKS_BACKENDS[_tasks_backend],
        # Every queue a task may name (@task(queue_name=...)); enqueueing to another one fails.
        # A worker serves the queues given by its --queue-name.
        "QUEUES": ["default", "webhooks"],
    },
}
# `manage.py worker` runs the sweeps for lost work (core.sweeps: a seal or a delivery whose task
# a killed worker left RUNNING) when it starts and then every this many seconds.
TASKS_SWEEP_SECONDS = env.float("TASKS_SWEEP_SECONDS", default=15.0)
# With PostgreSQL's autovacuum off, the sweep vacuums and analyzes the tables the service churns
# (tasks, deliveries, seals, emails: core.table_upkeep) at most this often, one worker at a
# time; with autovacuum on, or at 0, never.
TABLE_UPKEEP_SECONDS = env.float("TABLE_UPKEEP_SECONDS", default=30.0)

# --- Operators' endpoints (config.metrics) -------------------------------------------------------
# Prometheus metrics at /metrics answer only "Authorization: Bearer <METRICS_TOKEN>"; off (404)
# while it is empty.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# /readyz answers 503 (not ready) while a task queue's oldest ready task has waited more than this
# many seconds (core.queues: the workers are behind); 0, the default: the queues never make it
# unready (their figures stay in its body). Off by default because the queues are shared: every
# web process would turn unready at once and a load balancer would stop the signing pages too.
READYZ_TASK_MAX_AGE_SECONDS = env.float("READYZ_TASK_MAX_AGE_SECONDS", default=0.0)

# Idempotency-Key on the API's POSTs that create something (idempotency.views,
# docs/configuration.md): how long a key and its first answer are kept; the largest answer kept
# (a larger one is recorded without it: a retry with its key gets a 409, never a second run);
# after how long a request still marked running is taken to have died with its process.
IDEMPOTENCY_KEY_HOURS = env.float("IDEMPOTENCY_KEY_HOURS", default=24.0)
IDEMPOTENCY_MAX_STORED_BYTES = env.int("IDEMPOTENCY_MAX_STORED_BYTES", default=10 * 1024 * 1024)
IDEMPOTENCY_RUNNING_SECONDS = env.float("IDEMPOTENCY_RUNNING_SECONDS", default=600.0)

# The MCP server for AI agents (mcp_server/, docs/clients.md): the largest PDF a tool returns
# (as base64, a third larger; a larger one is a RequestTooLarge error naming the REST API).
MCP_MAX_FILE_BYTES = env.int("MCP_MAX_FILE_BYTES", default=5 * 1024 * 1024)
