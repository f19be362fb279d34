"""Office documents (DOCX, ODT, RTF; XLSX, ODS, PPTX, ODP) to PDF by LibreOffice headless.

Gotenberg's approach without its server: ``soffice --headless --convert-to pdf`` run once per
document, in a process group of its own under limits the kernel enforces, so a document that
makes LibreOffice hang, spin or swell costs one conversion and nothing else:

- the type is read from the bytes and the package checked before LibreOffice sees it
  (`core.engine.office_sniff`: encrypted, macro-carrying, unknown and zip-bomb files refused);
- LibreOffice runs in a profile of ours whose configuration disables macros and never updates
  or fetches a link (``registrymodifications.xcu``), with HOME and TMPDIR in the job's folder and
  no proxy in its environment; where the kernel allows it, in namespaces of its own with no
  network at all (a loopback that is down) and whose processes all die with it;
- an address-space limit, a CPU-time limit, a cap on the size of any file it writes, and a
  deadline: past it the whole process group is killed and the caller gets a refusal;
- only the first ``max_pages + 1`` pages are exported: more than ``max_pages`` is refused.

`OfficeConverter` is a process's bounded pool: at most ``workers`` conversions at once (more
wait, then are refused as busy), each worker slot keeping its profile between documents (a fresh
profile costs LibreOffice its first-start setup) and losing it when its LibreOffice was killed.
Fonts: LibreOffice sees the system's (Carlito and Caladea stand in for Calibri and Cambria,
Liberation for Arial and Times New Roman) and the font folders it is given, and embeds them.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from core.engine.office_sniff import OfficeKind, OfficeRefused, sniff, too_many_pages
from core.engine.pdf import PdfUnreadable, open_pdf
from core.engine.problems import EngineError

SOFFICE = "soffice"
NICE = 10  # conversions are batch work: the server's threads come first for the CPU
MAX_OUTPUT_BYTES = 512 * 1_048_576  # no file LibreOffice writes may grow past this

# The profile's configuration, written before every run so no earlier run can have changed it.
# Macros: never run (the highest security level, and execution disabled outright). Links: never
# updated on load (Writer's 0 and Calc's 1 mean "never"), and linked pictures or frames from a
# document that is not in a trusted location (none is) never fetched.
_SETTINGS: dict[str, dict[str, int | bool]] = {
    "/org.openoffice.Office.Common/Security/Scripting": {
        "MacroSecurityLevel": 3,
        "DisableMacrosExecution": True,
        "BlockUntrustedRefererLinks": True,
    },
    "/org.openoffice.Office.Writer/Content/Update": {"Link": 0},
    "/org.openoffice.Office.Calc/Content/Update": {"Link": 1},
    "/org.openoffice.Office.Common/Misc": {"UseLocking": False},
}


class OfficeBusy(EngineError):
    """Every converter is busy and stayed so for the time a request may wait."""

    code = "office_busy"
    kind = "busy"
    retry_after_seconds = 10

    def __init__(self, message: str) -> None:
        super().__init__(message)


@dataclass(frozen=True)
class Converted:
    pdf: bytes
    kind: OfficeKind  # what the document was
    pages: int


def run_soffice(
    data: bytes,
    kind: OfficeKind,
    filename: str,
    *,
    timeout: float,
    memory_limit: int,
    max_pages: int,
    profile_dir: Path | None,
    font_dirs: tuple[Path, ...] = (),
    soffice: str = SOFFICE,
) -> Converted:
    """Convert a document already sniffed as ``kind``."""
    name = filename or "The document"
    with tempfile.TemporaryDirectory(prefix="office-") as folder:
        work = Path(folder)
        profile = profile_dir or work / "profile"
        write_profile(profile)
        for sub in ("in", "out", "home", "tmp"):
            (work / sub).mkdir()
        # Our own name for the input: the client's may hold anything.
        source = work / "in" / f"document.{kind.extension}"
        source.write_bytes(data)
        command = [
            *_confinement(),
            *_limits(timeout, memory_limit),
            soffice,
            f"-env:UserInstallation={profile.absolute().as_uri()}",
            "--headless",
            "--invisible",
            "--norestore",
            "--nolockcheck",
            "--nologo",
            "--nodefault",
            f"--infilter={kind.import_filter}",
            "--convert-to",
            _export_filter(kind, max_pages),
            "--outdir",
            str(work / "out"),
            str(source),
        ]
        with (work / "log").open("wb") as log:
            process = subprocess.Popen(  # noqa: S603 - fixed programs; the document is a path
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=work,
                env=_environment(work, font_dirs),
                start_new_session=True,  # its own process group, killed as one
            )
            try:
                code = process.wait(timeout)
            except subprocess.TimeoutExpired:
                _kill(process)
                raise OfficeRefused(
                    "timeout",
                    f"{name} took longer than {timeout:g} seconds to convert to PDF; simplify it "
                    "or save it as a PDF and upload that.",
                    log_detail=f"killed after {timeout:g} s",
                ) from None
            finally:
                _kill(process)  # what it left behind, if anything
        output = work / "out" / "document.pdf"
        if not output.is_file():
            raise OfficeRefused(
                "failed",
                f"{name} could not be converted to PDF: LibreOffice could not open it, or it "
                "needed more memory than a conversion may use.",
                log_detail=f"soffice exit code {code}",
            )
        pdf = output.read_bytes()
    pages = _page_count(pdf, name)
    if pages > max_pages:
        raise OfficeRefused("too_many_pages", too_many_pages(name, max_pages))
    return Converted(pdf=pdf, kind=kind, pages=pages)


def write_profile(profile: Path) -> None:
    """Our configuration in ``profile`` (a LibreOffice user installation), made if need be."""
    user = profile / "user"
    user.mkdir(parents=True, exist_ok=True)
    items = []
    for path, props in _SETTINGS.items():
        for prop, value in props.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            items.append(
                f'<item oor:path="{escape(path)}"><prop oor:name="{prop}" oor:op="fuse">'
                f"<value>{text}</value></prop></item>"
            )
    (user / "registrymodifications.xcu").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
        'xmlns:xs="http://www.w3.org/2001/XMLSchema" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
        + "\n".join(items)
        + "\n</oor:items>\n",
        encoding="utf-8",
    )


def _export_filter(kind: OfficeKind, max_pages: int) -> str:
    # One page past the limit, so that a longer document is known to be longer.
    options = {"PageRange": {"type": "string", "value": f"1-{max_pages + 1}"}}
    return f"pdf:{kind.application}_pdf_Export:{json.dumps(options, separators=(',', ':'))}"


def _limits(timeout: float, memory_limit: int) -> list[str]:
    """prlimit and nice before the program: limits set in the child before it runs anything
    (Popen's preexec_fn is unsafe in a threaded server). The CPU limit backs the deadline up
    should this process die before it can kill the group."""
    limits = [
        "prlimit",
        f"--cpu={int(timeout) + 5}",
        f"--fsize={MAX_OUTPUT_BYTES}",
        "--core=0",
    ]
    if memory_limit > 0:
        limits.append(f"--as={memory_limit}")
    return [*limits, "--", "nice", "-n", str(NICE)]


def _confinement() -> list[str]:
    """New user, network and PID namespaces when the kernel lets this user make them: no network
    (only a loopback that is down), and every process of the conversion killed with its first
    one. Without them, the profile's settings alone keep links unfetched."""
    return list(_NAMESPACES) if _namespaces_available() else []


_NAMESPACES = ("unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child")


@functools.cache
def _namespaces_available() -> bool:
    try:
        return (
            subprocess.run(  # noqa: S603 - a fixed command
                [*_NAMESPACES, "true"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=10,
                check=False,
            ).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


def _environment(work: Path, font_dirs: tuple[Path, ...]) -> dict[str, str]:
    """A small environment of its own: no proxy (nothing to reach), HOME and TMPDIR in ``work``,
    and a fontconfig file adding ``font_dirs`` to the system's fonts."""
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work / "home"),
        "TMPDIR": str(work / "tmp"),
        "LANG": "C.UTF-8",
        "SAL_USE_VCLPLUGIN": "svp",  # headless drawing, no display
    }
    dirs = [d for d in font_dirs if d.is_dir()]
    if dirs:
        fonts_conf = work / "fonts.conf"
        fonts_conf.write_text(
            '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
            '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
            + "".join(f"<dir>{escape(str(d.absolute()))}</dir>\n" for d in dirs)
            + f"<cachedir>{escape(str(work / 'fontcache'))}</cachedir>\n</fontconfig>\n",
            encoding="utf-8",
        )
        environment["FONTCONFIG_FILE"] = str(fonts_conf)
    return environment


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(5)


def _page_count(pdf: bytes, name: str) -> int:
    try:
        with open_pdf(pdf) as document:
            pages = len(document.pages)
    except PdfUnreadable:
        pages = 0
    if pages == 0:
        raise OfficeRefused("failed", f"{name} could not be converted to PDF.")
    return pages


class OfficeConverter:
    """This process's conversions: at most ``workers`` at once, each in a worker slot with its
    own LibreOffice profile (kept in ``root``, made on first use); a request waits at most
    ``queue_timeout`` seconds for a slot, then is refused (OfficeBusy). Documents are sniffed
    and refused before they wait."""

    def __init__(
        self,
        *,
        workers: int = 2,
        queue_timeout: float = 20.0,
        root: Path | None = None,
        soffice: str = SOFFICE,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers
        self.queue_timeout = queue_timeout
        self.soffice = soffice
        self.root = root or Path(tempfile.mkdtemp(prefix="office-profiles-"))
        self._slots: queue.LifoQueue[int] = queue.LifoQueue()  # the warmest profile first
        for slot in range(workers):
            self._slots.put(slot)

    def convert(
        self,
        data: bytes,
        filename: str,
        *,
        timeout: float,
        memory_limit: int,
        max_pages: int,
        font_dirs: tuple[Path, ...] = (),
    ) -> Converted:
        """``data`` (named ``filename`` in messages) as a PDF, by one LibreOffice run within
        ``timeout`` seconds and ``memory_limit`` bytes of address space. Raises OfficeBusy, or
        OfficeRefused (``reason``: the sniffer's, or "timeout", "failed", "too_many_pages")."""
        kind = sniff(data, filename, max_pages=max_pages)
        try:
            slot = self._slots.get(timeout=self.queue_timeout)
        except queue.Empty:
            raise OfficeBusy("Every document converter is busy; try again in a moment.") from None
        profile = self.root / f"worker-{slot}"
        try:
            return run_soffice(
                data,
                kind,
                filename,
                timeout=timeout,
                memory_limit=memory_limit,
                max_pages=max_pages,
                profile_dir=profile,
                font_dirs=font_dirs,
                soffice=self.soffice,
            )
        except OfficeRefused as refused:
            if refused.reason in ("timeout", "failed"):
                # A LibreOffice that was killed or crashed may have left its profile half
                # written: the next document in this slot starts from a fresh one.
                shutil.rmtree(profile, ignore_errors=True)
            raise
        finally:
            self._slots.put(slot)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
