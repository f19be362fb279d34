"""SQLite wake-ups wherever the database file is: a Unix socket path has at most 107 bytes."""

import shutil
from pathlib import Path

from core.wakeup import UNIX_PATH_MAX, SocketListener, _send_wakeups, wake_directory_of


def _woken(directory: Path) -> bool:
    listener = SocketListener(directory)
    try:
        assert len(str(listener.path).encode()) <= UNIX_PATH_MAX
        _send_wakeups(directory)
        return listener.wait(2.0)
    finally:
        listener.close()


def test_a_database_near_the_root_listens_beside_its_file(tmp_path: Path) -> None:
    database = Path("/tmp") / f"w{tmp_path.name[-8:]}" / "db.sqlite3"
    database.parent.mkdir(exist_ok=True)
    try:
        directory = wake_directory_of(database)
        assert directory == Path(f"{database}-wake")
        assert _woken(directory)
    finally:
        shutil.rmtree(database.parent)


def test_a_database_deep_in_the_tree_is_still_woken(tmp_path: Path) -> None:
    # As pytest's own temporary directories, or a long DATA_DIR: beside it, no socket fits.
    database = tmp_path / ("a-rather-long-folder-name-" * 4) / "db.sqlite3"
    database.parent.mkdir()
    assert len(f"{database}-wake/1234567-0123abcd.sock".encode()) > UNIX_PATH_MAX
    directory = wake_directory_of(database)
    assert directory == wake_directory_of(database)  # workers and enqueuers meet there
    assert directory != wake_directory_of(database.with_name("other.sqlite3"))
    assert _woken(directory)
    assert directory.stat().st_mode & 0o077 == 0  # the user's own
