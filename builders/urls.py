"""The embedded builders' pages and endpoints, each under its link's token."""

from django.urls import path

from builders import packet_views, template_views, views, workflow_views

urlpatterns = [
    path("embed/<str:embed_type>/<str:token>/", views.builder_page, name="builders-page"),
    path(
        "embed/edit-pdf-template/<str:token>/pdf/",
        template_views.editor_pdf,
        name="builders-template-pdf",
    ),
    path(
        "embed/edit-pdf-template/<str:token>/spec/",
        template_views.editor_spec,
        name="builders-template-spec",
    ),
    path(
        "embed/edit-pdf-template/<str:token>/publish/",
        template_views.editor_publish,
        name="builders-template-publish",
    ),
    path(
        "embed/edit-pdf-template/<str:token>/detect/",
        template_views.editor_detect,
        name="builders-template-detect",
    ),
    path(
        "embed/edit-pdf-template/<str:token>/preview/",
        template_views.editor_preview,
        name="builders-template-preview",
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
    *[
        path(
            f"embed/edit-workflow/<str:token>/{name}/",
            getattr(workflow_views, name),
            name=f"builders-workflow-{name}",
        )
        for name in ("definition", "draft", "preview", "publish")
    ],
]
