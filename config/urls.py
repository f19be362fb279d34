"""Root URLs: the REST API under /api and its reference, GraphQL at /graphql and / (a browser
gets GraphiQL and the start page there), the admin, health."""

from django.contrib import admin
from django.contrib.staticfiles.urls import staticfiles_urlpatterns
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularSwaggerSplitView

from accounts.member_graphql import MemberGraphQLApi
from accounts.settings.urls import urlpatterns as settings_urls
from config.metrics import metrics
from config.schema import schema
from core.graphql.explorer import graphiql_page, schema_sdl_view
from core.openapi import OpenApiDocumentApi
from core.pages import page_or_api, start_page
from core.views import favicon, healthz, not_found, readyz
from esign.api import DocumentVerifyApi
from esign.verify import verify_page
from idempotency.views import IdempotentGraphQLApi
from mcp_server.views import mcp_endpoint
from webhooks.urls import urlpatterns as webhook_settings_urls

# Idempotency-Key on its POSTs (idempotency.views).
graphql_view = IdempotentGraphQLApi.as_view(schema=schema)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    # For load balancers and orchestrators (the database and the storage answer), and for
    # Prometheus (METRICS_TOKEN): operators' endpoints, not the API.
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics, name="metrics"),
    # Members' pages: log in, then the organization's API settings (keys, webhooks...): the
    # page is accounts', and each app's section brings its changes, in one namespace.
    path("accounts/", include("accounts.urls")),
    # Single sign-on (OpenID Connect): off (404) until SSO_OIDC_ISSUER is set.
    path("oidc/", include("accounts.sso_urls")),
    path("settings/", include((settings_urls + webhook_settings_urls, "settings"))),
    # The MCP server for AI agents (Streamable HTTP), with the organization's API key.
    path("mcp", mcp_endpoint, name="mcp"),
    path("api/v1/", include("fill.urls")),
    path("api/v1/", include("generate.urls")),
    # Verifying a signed PDF: for programs (API key) and a public page for people.
    path("api/v1/verify", DocumentVerifyApi.as_view(), name="pdf-verify-api"),
    path("verify", verify_page, name="pdf-verify"),
    # The API reference, before the catch-all below: the OpenAPI document and Swagger UI.
    path("api/openapi.json", OpenApiDocumentApi.as_view(), name="openapi-schema"),
    path(
        "api/docs", SpectacularSwaggerSplitView.as_view(url_name="openapi-schema"), name="api-docs"
    ),
    path("api/docs/", RedirectView.as_view(pattern_name="api-docs")),
    path("", include("esign.urls")),
    # The embedded builders generateEmbedURL hands out (/embed/<type>/<token>/).
    path("", include("builders.urls")),
    # Webform pages (/form/<organization>/<workflow>) and workflow documents (/download/...).
    path("", include("workflows.urls")),
    path("graphql/schema.graphql", schema_sdl_view(schema), name="graphql-sdl"),
    # GraphiQL's queries with a member's session (no API key): accounts/member_graphql.py.
    path("graphql/member", MemberGraphQLApi.as_view(schema=schema), name="graphql-member"),
    # Clients POST to both; a browser's GET gets GraphiQL (members) and the start page.
    path(
        "graphql",
        page_or_api(page=graphiql_page, api=graphql_view, browsers_only=True),
        name="graphql",
    ),
    path("", page_or_api(page=start_page, api=graphql_view), name="graphql-root"),
    # Unknown API paths (and documents' download paths, which API keys read) answer in the
    # wire shape even when DEBUG shows HTML pages elsewhere.
    re_path(r"^api/", not_found),
    re_path(r"^download/", not_found),
]

# With DEBUG on (the run command), the static files are served here; in production the proxy
# serves collectstatic's output and this adds nothing.
urlpatterns += staticfiles_urlpatterns()

handler400 = "core.views.bad_request"
handler404 = "core.views.not_found"
handler500 = "core.views.server_error"
