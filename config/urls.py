"""Root URLs: the REST API under /api, GraphQL at /graphql and /, the admin, health."""

from django.contrib import admin
from django.urls import include, path, re_path

from config.schema import schema
from core.graphql.views import GraphQLApi
from core.views import healthz, not_found

graphql_view = GraphQLApi.as_view(schema=schema)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    # Members' pages: log in, then the organization's API settings (keys, webhooks...).
    path("accounts/", include("accounts.urls")),
    path("settings/", include("webhooks.urls")),
    path("api/v1/", include("fill.urls")),
    path("api/v1/", include("generate.urls")),
    path("", include("esign.urls")),
    path("graphql", graphql_view, name="graphql"),
    path("", graphql_view, name="graphql-root"),
    # Unknown API paths answer in the wire shape even when DEBUG shows HTML pages elsewhere.
    re_path(r"^api/", not_found),
]

handler404 = "core.views.not_found"
handler500 = "core.views.server_error"
