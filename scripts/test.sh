#!/usr/bin/env bash
# Install everything the suite needs, then run the linters and the whole test suite.
# DATABASE_URL selects the database (SQLite when unset; CI points it at PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
export PATH="$PWD/.venv/bin:$PATH"

ruff check .
ruff format --check .
# Every script the pages load, the way ruff checks the Python (eslint.config.js).
node_modules/.bin/eslint .
lint-imports
mypy
python manage.py makemigrations --check --dry-run >/dev/null
# worksteal: an idle worker takes the queued tests of a busy one, so neither waits out the
# other's long tail; tests of a module mostly stay together (its module fixtures start once).
pytest -n "${PYTEST_WORKERS:-auto}" --dist worksteal "$@"
