"""The embedded builders' pages and endpoints, each under its link's token."""

from types import ModuleType

from django.urls import URLPattern, path

from builders import packet_views, template_views, views, workflow_views


def _endpoints(
    embed_type: str, short: str, views: ModuleType, names: tuple[str, ...], view_prefix: str = ""
) -> list[URLPattern]:
    """The endpoints a builder's page calls, as its script names them: each at
    ``embed/<embed_type>/<token>/<name>/``, named ``builders-<short>-<name>``, served by the
    view ``<view_prefix><name>`` of ``views``."""
    return [
        path(
            f"embed/{embed_type}/<str:token>/{name}/",
            getattr(views, view_prefix + name),
            name=f"builders-{short}-{name}",
        )
        for name in names
    ]


urlpatterns = [
    path("embed/<str:embed_type>/<str:token>/", views.builder_page, name="builders-page"),
    *_endpoints(
        "edit-pdf-template",
        "template",
        template_views,
        ("pdf", "spec", "publish", "detect", "preview"),
        view_prefix="editor_",
    ),
    path(
        "embed/edit-etch-packet/<str:token>/templates/<str:eid>/",
        packet_views.template_fields,
        name="builders-packet-template",
    ),
    path(
        "embed/edit-etch-packet/<str:token>/templates/<str:eid>/pdf/",
        packet_views.template_pdf,
        name="builders-packet-template-pdf",
    ),
    path(
        "embed/edit-etch-packet/<str:token>/send/", packet_views.send, name="builders-packet-send"
    ),
    *_endpoints(
        "edit-workflow", "workflow", workflow_views, ("definition", "draft", "preview", "publish")
    ),
]
