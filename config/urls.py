"""Root URLs: the REST API under /api, GraphQL at /graphql and /, the admin, health."""

from django.contrib import admin
from django.urls import path, re_path

from config.schema import schema
from core.graphql.views import GraphQLApi
from core.views import healthz, not_found

graphql_view = GraphQLApi.as_view(schema=schema)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("graphql", graphql_view, name="graphql"),
    path("", graphql_view, name="graphql-root"),
    # Unknown API paths answer in the wire shape even when DEBUG shows HTML pages elsewhere.
    re_path(r"^api/", not_found),
]

handler404 = "core.views.not_found"
handler500 = "core.views.server_error"
