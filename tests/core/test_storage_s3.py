"""Stored files in an S3-compatible bucket (S3_BUCKET): blobs, template PDFs read back by a fill,
the admin's kept uploads, and nothing written under MEDIA_ROOT. The bucket is on a real
S3-protocol server process (tests/s3server.py)."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.files.storage import default_storage, storages
from django.test import Client
from django.utils import timezone

from accounts.models import Organization, User
from core.blobs import blob_delete, blob_read, blob_save
from templates_app import upload_stash
from templates_app.models import PdfTemplate
from templates_app.services import version_pdf
from tests.s3server import S3Server, S3Storage

ROOT = Path(__file__).resolve().parents[2]


def test_the_storage_is_the_bucket(s3_storage: S3Storage) -> None:
    assert type(storages["default"]).__name__ == "S3Storage"


def test_blobs_are_objects_of_the_bucket_read_back_by_hash(s3_storage: S3Storage) -> None:
    data = b"%PDF-1.7 stored once"
    sha = hashlib.sha256(data).hexdigest()

    path, saved_sha = blob_save(prefix="test/org", data=data)
    again, _ = blob_save(prefix="test/org", data=data)

    assert (path, saved_sha, again) == (f"test/org/{sha}.pdf", sha, path)
    assert s3_storage.names() == [f"test/org/{sha}.pdf"]
    assert s3_storage.read(path) == data
    assert blob_read(path, sha) == data
    blob_delete(path)
    assert s3_storage.names() == []


def test_a_template_pdf_is_stored_in_the_bucket_and_a_fill_reads_it(
    s3_storage: S3Storage, demo_template: PdfTemplate, api_client: Client, settings
) -> None:
    version = demo_template.versions.get(number=1)
    assert version.pdf_path.startswith(f"templates/{demo_template.organization.eid}/")
    assert s3_storage.names() == [version.pdf_path]
    assert hashlib.sha256(s3_storage.read(version.pdf_path)).hexdigest() == version.pdf_sha256
    from core import blobs

    blobs._cache.clear()  # another process: nothing read yet

    response = api_client.post(
        f"/api/v1/fill/{demo_template.eid}.pdf",
        data=json.dumps({"data": {"email": "ada@example.com"}}),
        content_type="application/json",
    )

    assert response.status_code == 200, response.content
    assert response.content.startswith(b"%PDF-")
    assert version_pdf(version) == s3_storage.read(version.pdf_path)
    assert not Path(settings.MEDIA_ROOT).exists()


def test_the_admins_kept_upload_is_in_the_bucket_and_expires(
    s3_storage: S3Storage, organization: Organization, settings
) -> None:
    member = User.objects.create_user("editor", "editor@example.com", "pw-12345678")
    pdf = b"%PDF-1.4 kept while another field is corrected"

    kept = upload_stash.stash_pdf(data=pdf, name="w9.pdf", user_id=member.pk)

    (key,) = s3_storage.names()
    assert key.startswith(f"{upload_stash.PREFIX}/{member.pk}-")
    assert s3_storage.read(key) == pdf
    assert upload_stash.stashed_pdf(kept.token, user_id=member.pk).data == pdf  # type: ignore[union-attr]
    assert upload_stash.stashed_pdf(kept.token, user_id=member.pk + 1) is None

    # Six hours later a new stash deletes it (the bucket's own modification time).
    later = timezone.now() + upload_stash.MAX_AGE + datetime.timedelta(minutes=1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(upload_stash.timezone, "now", lambda: later)
        upload_stash.stash_pdf(data=pdf, name="again.pdf", user_id=member.pk)

    assert key not in s3_storage.names()
    assert len(s3_storage.names()) == 1
    assert upload_stash.stashed_pdf(kept.token, user_id=member.pk) is None
    assert not Path(settings.MEDIA_ROOT).exists()


def test_a_missing_object_reads_as_a_missing_file(s3_storage: S3Storage) -> None:
    with pytest.raises(FileNotFoundError):
        default_storage.open("nowhere/missing.pdf", "rb")
    assert default_storage.listdir("nowhere") == ([], [])


def test_s3_bucket_is_one_setting_away(s3_server: S3Server, tmp_path: Path) -> None:
    """config/settings.py with S3_BUCKET set: the storage is that bucket at that endpoint."""
    bucket = s3_server.new_bucket()
    code = (
        "from django.core.files.storage import storages; s = storages['default'];"
        "from django.core.files.base import ContentFile;"
        "print(type(s).__name__, s.save('probe/one.txt', ContentFile(b'x')))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("MEDIA_ROOT", "DJANGO_SETTINGS_MODULE")}
    env.update(s3_server.environment(bucket), DATA_DIR=str(tmp_path / "data"), S3_PREFIX="svc")
    done = subprocess.run(  # noqa: S603 - this interpreter, the project's manage.py
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == ["S3Storage", "probe/one.txt"]
    listing = s3_server.client().list_objects_v2(Bucket=bucket)
    assert [item["Key"] for item in listing["Contents"]] == ["svc/probe/one.txt"]
    assert not (tmp_path / "data" / "media").exists()
    assert django_settings.STORAGES["default"]["BACKEND"].endswith("FileSystemStorage")
