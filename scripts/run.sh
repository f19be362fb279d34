#!/usr/bin/env bash
# Start the service with the embedded defaults: SQLite and files under ./data, a demo
# organization, admin user and development API key. Serves on 127.0.0.1:8000.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh run
export PATH="$PWD/.venv/bin:$PATH"

python manage.py migrate --noinput -v0
eval "$(python manage.py demo_setup)"

host="${HOST:-127.0.0.1}"
port="${PORT:-8000}"
base="http://$host:$port"
cat <<INFO

Service: $base   (admin: $base/admin/  user: $DEMO_ADMIN_USER${DEMO_ADMIN_PASSWORD:+  password: $DEMO_ADMIN_PASSWORD})
Demo development API key (shown once; a new one is made at each start): $DEMO_API_KEY

Try it:
  curl -s -u '$DEMO_API_KEY:' -H 'Content-Type: application/json' \\
    -d '{"query":"{ currentUser { eid name organizations { eid name slug } } }"}' $base/graphql

INFO
exec python manage.py runserver "$host:$port" --noreload
