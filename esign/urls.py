"""Routes of e-signature: the signer's pages (token in the link) and the documents' download."""

from django.urls import include, path

from esign.api import DocumentGroupZipApi
from esign.signing import attachment_views, document_views, link_views, qualified_views, views

# What a signer does on the signing page, each under api/etch/sign/<signer's eid>/.
signing_urlpatterns = [
    path("documents/<name:alias_id>.pdf", document_views.signing_document, name="esign-document"),
    path(
        "documents/<name:alias_id>/pages/<int:page>.webp",
        document_views.signing_page_image,
        name="esign-page-image",
    ),
    path("complete", views.signing_complete, name="esign-complete"),
    path("decline", views.signing_decline, name="esign-decline"),
    path("attachments", attachment_views.attachment_upload, name="esign-attachment-upload"),
    path("attachments/remove", attachment_views.attachment_delete, name="esign-attachment-remove"),
    path("forward", views.signing_forward, name="esign-forward"),
    path("new-link", link_views.signing_new_link, name="esign-new-link"),
    path("code", link_views.signing_code, name="esign-code"),
]

urlpatterns = [
    path("api/etch/verify/<name:signer_eid>", views.signing_page, name="esign-verify"),
    path("api/etch/sign/<name:signer_eid>/", include(signing_urlpatterns)),
    path("api/etch/copy/<name:signer_eid>", document_views.signer_copy, name="esign-signer-copy"),
    path(
        "api/etch/copy/<name:signer_eid>/<name:alias_id>.pdf",
        document_views.signer_copy_document,
        name="esign-signer-copy-document",
    ),
    # Where the legacy frame's string leads when the signer has no redirect URL.
    path("etch-complete", link_views.signing_done, name="esign-done"),
    # A qualified signer's signature at their provider (issue 51: esign.signing.qualified_views).
    path(
        "api/etch/qualified/<name:signer_eid>/start",
        qualified_views.qualified_start,
        name="esign-qualified-start",
    ),
    path(
        "api/etch/qualified/return",
        qualified_views.qualified_return,
        name="esign-qualified-return",
    ),
    path(
        "api/etch/qualified/<name:signer_eid>/sign",
        qualified_views.qualified_sign,
        name="esign-qualified-sign",
    ),
    path(
        "api/document-group/<eid:group_eid>.zip",
        DocumentGroupZipApi.as_view(),
        name="esign-download-zip",
    ),
]
