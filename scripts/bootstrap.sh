#!/usr/bin/env bash
# Install what the service needs, or with "test" what its test suite needs too:
# Debian packages when missing (apt-get), a virtualenv in .venv, the pinned pip packages,
# and for tests a second virtualenv with the published python-anvil client.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-run}"

# Renderer libraries and fonts: WeasyPrint needs Pango; Noto Sans is the default font; Noto CJK
# (for HTML), Droid Sans Fallback and Nanum Gothic (TrueType outlines, which the fill engine can
# embed) cover CJK and Hangul; Liberation stands in for Helvetica/Times/Courier in HTML.
# gettext compiles the pages' translations (msgfmt).
# LibreOffice without its GUI converts Office documents (DOCX, ODT, RTF, XLSX, ODS, PPTX) to PDF;
# Carlito and Caladea are metric-compatible with Calibri and Cambria (Liberation already covers
# Arial and Times), so a Word document's lines break where Word breaks them.
run_packages=(
  python3-venv libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 libjpeg62-turbo
  fonts-noto-core fonts-noto-cjk fonts-droid-fallback fonts-nanum fonts-liberation fontconfig
  gettext
  libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui
  fonts-crosextra-carlito fonts-crosextra-caladea
)
# Tests read PDFs with poppler (pdftoppm, pdftotext), drive Debian's Chromium, sign with SoftHSM2.
# The several-processes test shares a Redis server (the rate limiter's counters) between them.
# pdfsig checks signers' certificates against the test CAs in an NSS database (certutil).
test_packages=(poppler-utils qpdf chromium softhsm2 opensc redis-server libnss3-tools)

packages=("${run_packages[@]}")
if [ "$mode" = "test" ]; then
  packages+=("${test_packages[@]}")
  # The contract tests also run the published Node client; any Node.js 18+ will do.
  if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "Installing Debian packages: ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
fi

python="${PYTHON:-}"
if [ -z "$python" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then python="$candidate"; break; fi
  done
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  echo "Python 3.11 is required (found: $("$python" --version 2>&1))." >&2
  exit 1
fi

# Install pip packages only when the requirements changed since the last install.
install_venv() {  # <venv dir> <requirements file...>
  local venv="$1"; shift
  if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
  fi
  local stamp="$venv/.requirements.sha256"
  local wanted
  wanted="$(cat "$@" | sha256sum | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    echo "Installing Python packages into $venv" >&2
    "$venv/bin/python" -m pip install -q --upgrade pip >&2
    local args=() nodeps=()
    for file in "$@"; do
      case "$file" in
        *-nodeps.txt) nodeps+=(-r "$file") ;;
        *) args+=(-r "$file") ;;
      esac
    done
    "$venv/bin/python" -m pip install -q "${args[@]}" >&2
    # Packages whose declared dependencies are replaced by others pinned (see the file).
    if [ "${#nodeps[@]}" -gt 0 ]; then
      "$venv/bin/python" -m pip install -q --no-deps "${nodeps[@]}" >&2
    fi
    echo "$wanted" > "$stamp"
  fi
}

# Install Node packages pinned by a package-lock.json (no download of anything else), only when
# the lock changed since the last install.
install_node() {  # <dir holding package-lock.json> <what, for the log>
  local node_dir="$1" lock_sum
  lock_sum="$(sha256sum "$node_dir/package-lock.json" | cut -d' ' -f1)"
  if [ ! -f "$node_dir/node_modules/.lock.sha256" ] || \
     [ "$(cat "$node_dir/node_modules/.lock.sha256")" != "$lock_sum" ]; then
    echo "Installing $2 into $node_dir" >&2
    npm ci --prefix "$node_dir" --no-audit --no-fund --loglevel=error >&2
    echo "$lock_sum" > "$node_dir/node_modules/.lock.sha256"
  fi
}

if [ "$mode" = "test" ]; then
  install_venv .venv requirements-dev.txt requirements.txt requirements-nodeps.txt
  # The published clients pin a graphql-core that graphene cannot use: they get their own venv
  # and the contract tests run them as separate processes, as an integrator would.
  install_venv .venv-clients tests/contract/requirements-clients.txt
  # The published Node client, and ESLint (package.json at the root).
  install_node tests/contract/node "the Node client"
  install_node . "ESLint"
elif [ "$(cat .venv/.requirements.sha256 2>/dev/null)" != \
     "$(cat requirements-dev.txt requirements.txt requirements-nodeps.txt | sha256sum | cut -d' ' -f1)" ]; then
  # A current test install (requirements-dev.txt includes requirements.txt) serves runs too.
  install_venv .venv requirements.txt requirements-nodeps.txt
fi

# The translations need no step here: each app's locale/<locale>/LC_MESSAGES/django.po is committed
# with its compiled django.mo, so every checkout serves every language; migrate (below) stops with
# core.E001 if a .po was edited without recompiling (`manage.py compilemessages`, see
# docs/deployment.md, Languages).
