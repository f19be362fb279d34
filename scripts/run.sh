#!/usr/bin/env bash
# Start the service with the embedded defaults: SQLite and files under ./data, a demo
# organization, admin user and development API key. Serves on 127.0.0.1:8000 (HOST, PORT) and
# runs a background task worker (manage.py worker) beside the server; Ctrl-C (or SIGTERM) stops
# both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh run
export PATH="$PWD/.venv/bin:$PATH"

host="${HOST:-127.0.0.1}"
port="${PORT:-8000}"
# Every link the service hands out (signing URLs, emails, downloads, webhook bodies, the embed
# demo's frame, the seal's /Location) starts with PUBLIC_BASE_URL. Unless it is set (behind a
# proxy, or for other machines to reach this one), it is the address the server listens on;
# a wildcard address is reached as 127.0.0.1 (::1) from this machine.
if [ -z "${PUBLIC_BASE_URL:-}" ]; then
  case "$host" in
    0.0.0.0 | "") link_host=127.0.0.1 ;;
    :: | "[::]") link_host="[::1]" ;;
    *:*) link_host="[${host#[}"; link_host="${link_host%]}]" ;;
    *) link_host="$host" ;;
  esac
  export PUBLIC_BASE_URL="http://$link_host:$port"
fi
base="${PUBLIC_BASE_URL%/}"

python manage.py migrate --noinput -v0
# The static files under hashed names, compressed (core/staticstorage.py), which the server
# serves itself (WhiteNoise) with a year's cache lifetime. Collected again only when a static
# file or the pinned packages (which bring the admin's) changed since the last time.
static_root="$(DJANGO_SETTINGS_MODULE=config.settings python -c 'import django; django.setup(); from django.conf import settings; print(settings.STATIC_ROOT)' 2>/dev/null | tail -1 || true)"
static_sum="$( (cat requirements.txt; find . -path ./data -prune -o -path './.venv*' -prune -o \
  -path ./tests -prune -o -path '*/static/*' -type f -print0 | sort -z | xargs -0 sha256sum) |
  sha256sum | cut -d' ' -f1)"
if [ -z "$static_root" ] || [ "$(cat "$static_root/.sources.sha256" 2>/dev/null)" != "$static_sum" ]; then
  python manage.py collectstatic --noinput -v0
  if [ -n "$static_root" ]; then echo "$static_sum" > "$static_root/.sources.sha256"; fi
fi
eval "$(python manage.py demo_setup)"

# The admin's password is printed only by the start that created the user (it is stored
# nowhere else); later starts say how to set one.
if [ -n "$DEMO_ADMIN_PASSWORD" ]; then
  admin_login="user: $DEMO_ADMIN_USER  password: $DEMO_ADMIN_PASSWORD  (shown this once; change it with: .venv/bin/python manage.py changepassword $DEMO_ADMIN_USER)"
elif [ -n "$DEMO_ADMIN_HAS_PASSWORD" ]; then
  admin_login="user: $DEMO_ADMIN_USER  password: the one printed at the first start; forgot it? .venv/bin/python manage.py changepassword $DEMO_ADMIN_USER"
else
  admin_login="user: $DEMO_ADMIN_USER has no password yet: .venv/bin/python manage.py changepassword $DEMO_ADMIN_USER (or createsuperuser for another admin)"
fi
if [ -n "$DEMO_API_KEY_IS_NEW" ]; then
  key_note="new; kept in $DEMO_API_KEY_FILE (owner-only) and reused at every start"
else
  key_note="the same as before; kept in $DEMO_API_KEY_FILE (owner-only); delete that file for a new one"
fi
cat <<INFO

Service: $base   (start page; API reference: $base/api/docs  GraphiQL: $base/graphql)
Admin:   $base/admin/   $admin_login
Demo development API key ($DEMO_API_KEY_RATE_LIMIT, $key_note):
  $DEMO_API_KEY
Demo organization: slug $DEMO_ORG_SLUG (eid $DEMO_ORG_EID)   Demo template: $DEMO_TEMPLATE_EID

Fill the demo template (every field type) and save the PDF:
  curl -s -u '$DEMO_API_KEY:' -H 'Content-Type: application/json' -o filled.pdf -w '%{http_code}\\n' \\
    -d '{"title": "Demo fill", "data": {"name": {"firstName": "Ada", "lastName": "Lovelace"}, "email": "ada@example.com", "birthDate": "1815-12-10", "amount": 1234.5, "agree": true, "colour": "green", "items": ["Difference engine", "Analytical engine"], "prices": [1200, 3400.5], "footer": "Page {{pageNumber}} of {{totalPages}}"}}' \\
    $base/api/v1/fill/$DEMO_TEMPLATE_EID.pdf

Ask GraphQL about the template:
  curl -s -u '$DEMO_API_KEY:' -H 'Content-Type: application/json' \\
    -d '{"query":"{ cast(eid: \\"$DEMO_TEMPLATE_EID\\") { eid title fieldInfo exampleData } }"}' $base/graphql

Demo workflow (two webforms that fill the demo template; embedded: $base${DEMO_WORKFLOW_PATH}/embed-demo):
  $base$DEMO_WORKFLOW_PATH

Sign the demo packet as its first (embedded) signer (a test packet; the link lasts 24 hours):
  $base$DEMO_SIGNING_PATH

Create another two-signer test packet from the demo template (GraphQL createEtchPacket):
  curl -s -u '$DEMO_API_KEY:' -H 'Content-Type: application/json' -d @$DEMO_PACKET_REQUEST_FILE $base/graphql

INFO
# Where emails (an email signer's signing link) can be read: kept in the database in development.
if [ -n "$DEMO_EMAILS_PATH" ]; then
  cat <<INFO
Emails are kept, not sent (development): read them, with their links, in the admin:
  $base$DEMO_EMAILS_PATH   (EMAIL_URL=smtp://... sends them; see docs/configuration.md)

INFO
else
  echo "Emails go where EMAIL_URL says (printed here when it is consolemail://; see docs/configuration.md)."
  echo
fi
# Webhooks (and fetched images) reach only public addresses unless FETCH_ALLOW_HOSTS names the
# host exactly as the URL does: a receiver on this machine is named by its address.
if [ -n "${FETCH_ALLOW_HOSTS:-}" ]; then
  echo "Webhooks and fetched images may also reach: $FETCH_ALLOW_HOSTS (FETCH_ALLOW_HOSTS)"
else
  echo "A webhook receiver on this machine: start with FETCH_ALLOW_HOSTS=127.0.0.1 bash scripts/run.sh"
  echo "  and give its URL by that address (127.0.0.1:<port>, not localhost); see docs/webhooks.md."
fi
echo
# The server and a task worker run in the background while this shell waits for either, so its
# traps run at once: Ctrl-C (SIGINT) or SIGTERM stops both, and when one stops, so does the
# other. The worker runs in its own session (setsid) so that Ctrl-C reaches it only once, as
# the SIGTERM below: a second signal would interrupt the task it is running. `manage.py worker`
# is db_worker woken as soon as a task is enqueued, which also sweeps for work whose task was
# lost (a worker killed in the middle of it) every TASKS_SWEEP_SECONDS. Two workers: one serves
# only the default queue (seals, signer emails), so a receiver that does not answer never stands
# between a signer and the sealed packet; the other serves every queue, the highest priority
# first (emails and deliveries before seals, core.background), and sends deliveries in a lane of
# its own too (core.worker), so an etchPacketComplete never waits for a seal to end.
pids=()
stop() {
  trap - INT TERM HUP
  if [ "${#pids[@]}" -gt 0 ]; then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
setsid python manage.py worker --queue-name default --no-reload &
pids+=("$!")
setsid python manage.py worker --queue-name '*' --no-reload &
pids+=("$!")
# The production server and its configuration (gunicorn.conf.py: threaded workers, timeouts
# above the service's caps, no credentials in the access log); it serves the static files
# itself (WhiteNoise), compressed and cached for good.
gunicorn -c gunicorn.conf.py -b "$host:$port" &
pids+=("$!")
status=0
wait -n || status=$?
exit "$status"
