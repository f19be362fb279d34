"""A workflow's filled documents in an S3-compatible bucket (S3_BUCKET): written when the last
webform is completed, read back from the bucket by the zip download; nothing under MEDIA_ROOT."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

from django.test import Client

from core import blobs
from tests.s3server import S3Storage
from tests.workflows.test_forge_submit import complete_demo
from workflows.models import Workflow


def test_the_filled_documents_are_in_the_bucket_and_the_zip_reads_them(
    s3_storage: S3Storage, demo_workflow: Workflow, graphql: Any, api_client: Client, settings
) -> None:
    last = complete_demo(graphql, demo_workflow)
    weld_data_eid = last["weldData"]["eid"]
    template_files = s3_storage.names()
    blobs._cache.clear()

    response = api_client.get(f"/download/{weld_data_eid}.zip")

    assert response.status_code == 200
    filled = zipfile.ZipFile(io.BytesIO(response.content)).read("demo-form.pdf")
    prefix = f"workflows/{demo_workflow.organization.eid}/"
    (document,) = [name for name in template_files if name.startswith(prefix)]
    assert s3_storage.read(document) == filled
    assert [name for name in template_files if not name.startswith(prefix)] == [
        name for name in template_files if name.startswith("templates/")
    ]
    assert not Path(settings.MEDIA_ROOT).exists()
