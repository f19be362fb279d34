"""GraphiQL for signed-in members at GET /graphql, and the schema as SDL at
/graphql/schema.graphql.

GraphiQL and React are served from static/vendor/graphiql (the files graphene-django would load
from a CDN, byte for byte: no network at run time). Without an API key, its queries run with
the member's session as the organization chosen in the bar (POST /graphql/member,
accounts/member_graphql.py: queries only, CSRF-checked). With an API key pasted into the page
they go to POST /graphql like any client's, so GraphiQL shows exactly what a client with that
key gets, mutations included. The key stays in the browser tab (sessionStorage) and is never
sent with cookies.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

DEFAULT_QUERY = """# Runs as the organization named above: with your session (queries only) or,
# once you paste an API key, as that key's organization (mutations too), as a client would.
{
  currentUser {
    name
    organizations {
      name
      slug
      casts {
        eid
        title
      }
    }
  }
}
"""


def is_member(user: Any) -> bool:
    """A signed-in user who belongs to an organization (or a superuser, who sees them all).

    ``organizations`` is the user's side of accounts' memberships (core imports no app)."""
    if not user.is_authenticated:
        return False
    return bool(user.is_superuser or user.organizations.exists())


@require_safe
def graphiql_page(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        # The members' login (accounts/urls.py): members need not be staff.
        return redirect_to_login(request.get_full_path(), reverse("accounts:login"))
    if not is_member(request.user):
        return render(request, "core/graphiql_refused.html", status=403)
    organizations = [
        {"slug": slug, "name": name}
        for slug, name in request.user.organizations.order_by("name").values_list("slug", "name")
    ]
    config = {
        "endpoint": reverse("graphql"),
        "memberEndpoint": reverse("graphql-member"),
        "organizations": organizations,
        "csrfToken": get_token(request),
        "sdl": reverse("graphql-sdl"),
        "defaultQuery": DEFAULT_QUERY,
    }
    return render(request, "core/graphiql.html", {"graphiql_config": config})


def schema_sdl_view(schema: Any) -> Any:
    """A view answering ``schema`` (a graphene.Schema) in the GraphQL schema language."""
    sdl = str(schema).rstrip() + "\n"

    @require_safe
    def view(request: HttpRequest) -> HttpResponse:
        response = HttpResponse(sdl, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = 'inline; filename="schema.graphql"'
        return response

    return view
