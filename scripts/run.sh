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

Fill the demo template (every field type) and save the PDF:
  curl -s -u '$DEMO_API_KEY:' -H 'Content-Type: application/json' -o filled.pdf -w '%{http_code}\\n' \\
    -d '{"title": "Demo fill", "data": {"name": {"firstName": "Ada", "lastName": "Lovelace"}, "email": "ada@example.com", "birthDate": "1815-12-10", "amount": 1234.5, "agree": true, "colour": "green", "items": ["Difference engine", "Analytical engine"], "prices": [1200, 3400.5], "footer": "Page {{pageNumber}} of {{totalPages}}"}}' \\
    $base/api/v1/fill/$DEMO_TEMPLATE_EID.pdf

Ask GraphQL about the template:
  curl -s -u '$DEMO_API_KEY:' -H 'Content-Type: application/json' \\
    -d '{"query":"{ cast(eid: \\"$DEMO_TEMPLATE_EID\\") { eid title fieldInfo exampleData } }"}' $base/graphql

INFO
exec python manage.py runserver "$host:$port" --noreload
