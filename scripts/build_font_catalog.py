"""Build core/engine/fonts/data/google-fonts.json.gz from the npm package google-font-metadata.

Usage (from the repository root; needs npm, or a tarball fetched earlier with `npm pack`):

    python scripts/build_font_catalog.py                    # latest published version
    python scripts/build_font_catalog.py --spec google-font-metadata@6.0.8
    python scripts/build_font_catalog.py --tarball /tmp/google-font-metadata-6.0.8.tgz

The package's data/google-fonts-v1.json lists every Google Fonts family with one static TrueType
URL per weight, style and unicode subset (Google serves each subset as its own file). We keep,
per family, only the faces the engine uses: the weights closest to 400 and 700, upright and
italic where they exist, each with all of its subset files. Paths are stored relative to the
catalog base URL and split into a per-family folder plus a file token, which keeps the gzipped
file small. The output is deterministic for a given package and date, so a rebuild diffs cleanly.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import gzip
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

PACKAGE = "google-font-metadata"
DATA_MEMBER = "package/data/google-fonts-v1.json"
BASE_URL = "https://fonts.gstatic.com/"
DEFAULT_OUTPUT = (
    Path(__file__).resolve().parent.parent / "core/engine/fonts/data/google-fonts.json.gz"
)

# Slot names shared with core.engine.fonts.catalog; (style, target weight) per slot.
SLOTS = {
    "regular": ("normal", 400),
    "bold": ("normal", 700),
    "italic": ("italic", 400),
    "bold_italic": ("italic", 700),
}
# Subset files are listed primary first: Latin covers most text, so it is tried first.
SUBSET_ORDER = ("latin", "latin-ext")
_URL = re.compile(r"^(?P<folder>s/[^/]+/[^/]+/)(?P<token>[A-Za-z0-9_-]+)\.ttf$")


def nearest_weight(weights: list[int], target: int) -> int:
    """The weight closest to target; on a tie the heavier one (500 before 300 for 400)."""
    return min(weights, key=lambda weight: (abs(weight - target), -weight))


def _ordered_subsets(subsets: dict[str, Any]) -> list[str]:
    first = [name for name in SUBSET_ORDER if name in subsets]
    return first + sorted(name for name in subsets if name not in SUBSET_ORDER)


def build_family(entry: dict[str, Any]) -> dict[str, Any]:
    """One family's record: {"dir": folder, slot: [[subset, token], ...], ...}."""
    record: dict[str, Any] = {}
    chosen: dict[str, tuple[str, int]] = {}
    for slot, (style, target) in SLOTS.items():
        weights = [int(w) for w, styles in entry["variants"].items() if style in styles]
        if not weights:
            continue
        weight = nearest_weight(weights, target)
        # Bold that lands on the regular weight (a family with one weight) is no real bold:
        # leave the slot out and let the resolver fall back to the nearest face.
        if (style, weight) in chosen.values():
            continue
        chosen[slot] = (style, weight)
        files = entry["variants"][str(weight)][style]
        pairs = []
        for subset in _ordered_subsets(files):
            url = files[subset]["url"]["truetype"]
            match = _URL.match(url.removeprefix(BASE_URL)) if url.startswith(BASE_URL) else None
            if match is None:
                raise ValueError(f"{entry['family']}: unexpected TrueType URL {url!r}")
            folder = record.setdefault("dir", match["folder"])
            if folder != match["folder"]:
                raise ValueError(f"{entry['family']}: files in more than one folder")
            pairs.append([subset, match["token"]])
        record[slot] = pairs
    return record


def build_catalog(raw: dict[str, Any], *, version: str, integrity: str, date: str) -> dict:
    families = {entry["family"]: build_family(entry) for entry in raw.values()}
    return {
        "meta": {
            "source": f"npm {PACKAGE}@{version} {DATA_MEMBER.removeprefix('package/')}",
            "integrity": integrity,
            "generated": date,
            "generator": "scripts/build_font_catalog.py",
            "base_url": BASE_URL,
            "families": len(families),
        },
        "families": dict(sorted(families.items())),
    }


def _npm_pack(spec: str, destination: Path) -> Path:
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is not installed; pass --tarball instead")
    # A fixed argument list with no shell: the only input is the package spec.
    subprocess.run(  # noqa: S603
        [npm, "pack", spec, "--pack-destination", str(destination)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    (tarball,) = destination.glob(f"{PACKAGE}-*.tgz")
    return tarball


def _read_tarball(tarball: Path) -> tuple[str, dict[str, Any]]:
    # Members are read in memory; nothing is extracted to disk.
    with tarfile.open(tarball, "r:gz") as archive:
        package = json.load(archive.extractfile("package/package.json"))  # type: ignore[arg-type]
        raw = json.load(archive.extractfile(DATA_MEMBER))  # type: ignore[arg-type]
    return package["version"], raw


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default=PACKAGE, help="npm package spec to fetch")
    parser.add_argument("--tarball", type=Path, help="use this package tarball instead of npm")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--date", default=dt.datetime.now(dt.UTC).date().isoformat())
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        tarball = args.tarball or _npm_pack(args.spec, Path(tmp))
        digest = hashlib.sha512(tarball.read_bytes()).digest()
        version, raw = _read_tarball(tarball)
    integrity = "sha512-" + base64.b64encode(digest).decode()
    catalog = build_catalog(raw, version=version, integrity=integrity, date=args.date)

    # One family per line keeps the decompressed text readable and diffable.
    lines = [
        f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'))}"
        for k, v in catalog["families"].items()
    ]
    text = (
        '{"meta":'
        + json.dumps(catalog["meta"])
        + ',\n"families":{\n'
        + ",\n".join(lines)
        + "\n}}\n"
    )
    # An empty file name and mtime=0 keep the gzip header independent of where and when it ran.
    with (
        args.output.open("wb") as raw_out,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw_out, compresslevel=9, mtime=0) as out,
    ):
        out.write(text.encode())
    size = args.output.stat().st_size
    print(
        f"{args.output}: {catalog['meta']['families']} families, {size} bytes, {PACKAGE}@{version}"
    )


if __name__ == "__main__":
    main()
