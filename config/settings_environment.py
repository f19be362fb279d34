"""Where the settings are read from: the environment (and an optional .env file), and the data
directory every stored file defaults to. config.settings and its topic modules
(config/settings_*.py) read the environment through ``env``.
"""

import os
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# An optional .env file beside manage.py, for operators who prefer a file to exported variables.
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DATA_DIR = Path(env.str("DATA_DIR", default=str(BASE_DIR / "data")))


def owner_only(path: Path, mode: int) -> None:
    """Take group and other access away from ``path`` if this user owns it: the data directory
    holds the database, the stored documents and the development signing key."""
    status = path.stat()
    if status.st_uid == os.geteuid() and status.st_mode & 0o077:
        path.chmod(mode)


DATA_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
owner_only(DATA_DIR, 0o700)
