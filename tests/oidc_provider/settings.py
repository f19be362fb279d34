"""A real OpenID Connect provider for the single sign-on tests: django-oauth-toolkit in a Django
project of its own, run in its own process (tests/oidc_provider/__init__.py starts it).

Everything comes from the environment the test gives it: the SQLite file, the RSA key, how long
an authorization code lives."""

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
SECRET_KEY = "oidc-provider-for-tests-only-" + "x" * 32
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "oauth2_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
ROOT_URLCONF = "tests.oidc_provider.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [HERE / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
DATABASES = {
    "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["OIDC_PROVIDER_DB"]}
}
USE_TZ = True
# The provider's passwords and client secrets hashed the fast way, as the service's are in the
# tests (tests/conftest.py): PBKDF2 cost 0.4 s for each user, client, sign-in and token exchange.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STATIC_URL = "/static/"
LOGIN_URL = "/login/"
# The provider and the service both run on 127.0.0.1: distinct cookie names keep their
# sessions apart (cookies do not tell ports apart).
SESSION_COOKIE_NAME = "provider_session"
CSRF_COOKIE_NAME = "provider_csrftoken"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": Path(os.environ["OIDC_PROVIDER_KEY"]).read_text(),
    "OAUTH2_VALIDATOR_CLASS": "tests.oidc_provider.validator.ClaimsValidator",
    "SCOPES": {"openid": "OpenID Connect", "email": "Email", "profile": "Profile"},
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": int(os.environ.get("OIDC_PROVIDER_CODE_SECONDS", "60")),
    "PKCE_REQUIRED": True,
}
