"""Webhook deliveries: timeouts, retries, secret rotation, replays and batching."""

from django.core.exceptions import ImproperlyConfigured

from config.settings_environment import env

# --- Webhooks (owned by webhooks/) -------------------------------------------------------------
# Deliveries go through core.engine.fetch with the FETCH_ALLOW_* allowlists; see docs/webhooks.md.
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=10.0)
WEBHOOK_RESPONSE_EXCERPT_BYTES = env.int("WEBHOOK_RESPONSE_EXCERPT_BYTES", default=2048)
# Seconds between attempts after the first (which runs at once): 5 s, 1 min, 5 min, 30 min, 2 h,
# 6 h, 12 h, 24 h, each give or take 10 %; then the delivery is failed.
WEBHOOK_RETRY_DELAYS = [
    float(d)
    for d in env.list(
        "WEBHOOK_RETRY_DELAYS",
        default=["5", "60", "300", "1800", "7200", "21600", "43200", "86400"],
    )
]
# After a secret is rotated, the previous one keeps signing (a second signature) this long.
WEBHOOK_SECRET_OVERLAP_HOURS = env.float("WEBHOOK_SECRET_OVERLAP_HOURS", default=24.0)
# An attempt still unfinished this long after it started was abandoned by a worker that died;
# a delivery due this long ago that no task picked up lost its task. Both are retried.
WEBHOOK_LEASE_SECONDS = env.float("WEBHOOK_LEASE_SECONDS", default=120.0)
# Operators' replays of an organization's events (webhooks.services.replay): deliveries a second
# at most, so a receiver is not flooded, and the most events one replay sends.
WEBHOOK_REPLAY_PER_SECOND = env.float("WEBHOOK_REPLAY_PER_SECOND", default=2.0)
WEBHOOK_REPLAY_MAX_EVENTS = env.int("WEBHOOK_REPLAY_MAX_EVENTS", default=1000)
# The most replays an organization makes in any hour (the API's and the admin's together): each
# sends every event of its range again, so replays in a row would multiply deliveries. 0: none.
WEBHOOK_REPLAYS_PER_HOUR = env.int("WEBHOOK_REPLAYS_PER_HOUR", default=5)
# Deliveries one task claims, sends and finishes together (webhooks.services.delivery): the claim
# and finish transactions are paid once per batch. 1: one delivery per task.
WEBHOOK_DELIVERY_BATCH = env.int("WEBHOOK_DELIVERY_BATCH", default=10)
if WEBHOOK_DELIVERY_BATCH < 1:
    raise ImproperlyConfigured(
        f"WEBHOOK_DELIVERY_BATCH must be at least 1 (got {WEBHOOK_DELIVERY_BATCH})."
    )
