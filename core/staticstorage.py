"""The static files' storage: collectstatic writes every file under a name that carries a hash
of its content, compressed beside it (gzip), and WhiteNoise serves those names with a cache
lifetime of a year ("immutable"): a changed file gets a new name, so nothing is ever stale.
"""

from __future__ import annotations

from typing import Any

from django.core.files.storage import FileSystemStorage
from whitenoise.compress import Compressor
from whitenoise.storage import CompressedManifestStaticFilesStorage

BROTLI_QUALITY = 5


class _Compressor(Compressor):
    @staticmethod
    def compress_brotli(data: bytes) -> bytes:
        import brotli

        return brotli.compress(data, quality=BROTLI_QUALITY)


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage, with five changes:

    - the hashed names are used with DEBUG on too (the run command's server runs with it), so
      that every page of the run command is served as in production;
    - the relative import specifiers of JavaScript modules (``import { x } from "./x.js"``)
      are rewritten to the hashed names too, so an app's module graph is cached as a whole
      (the shared modules, ``"#common/dom.js"``, are named by the pages' import map, which
      core.importmap makes from the same hashed names);
    - a file missing from the manifest (a name a template makes up) falls back to its plain
      name, served with a short cache lifetime, rather than failing the page;
    - a reference to a file that does not exist (a vendored file's ``sourceMappingURL`` to a map
      that is not shipped) is left as it is instead of failing collectstatic;
    - Brotli at quality 5 instead of 11: within a few percent of the size, in a fraction of the
      time (collectstatic runs at every start of the run command whose files changed).
    """

    support_js_module_import_aggregation = True
    manifest_strict = False

    def create_compressor(self, **kwargs: Any) -> Compressor:
        return _Compressor(**kwargs)

    def url_converter(self, name: str, hashed_files: Any, template: str | None = None) -> Any:
        convert = super().url_converter(name, hashed_files, template)

        def tolerant(match: Any) -> str:
            try:
                return convert(match)
            except ValueError:  # the file referred to is not there
                return match.groupdict()["matched"]

        return tolerant

    def url(self, name: Any, force: bool = False) -> str:
        try:
            return super().url(name, force=True)
        except ValueError:  # neither in the manifest nor collected
            return FileSystemStorage.url(self, name)
