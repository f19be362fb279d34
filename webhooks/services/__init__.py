"""Webhooks' services, by concern; other apps import them from here.

- :mod:`~webhooks.services.endpoints`: the organization's settings (URL, token, public key) and
  signing secrets;
- :mod:`~webhooks.services.events`: recording an event with its delivery in the caller's
  transaction, resending, the test event, the delivery log;
- :mod:`~webhooks.services.delivery`: one attempt, claimed, POSTed and finished with no
  transaction open during the HTTP call;
- :mod:`~webhooks.services.retries`: the next attempt after a failure, and recovering what a
  dead worker left behind;
- :mod:`~webhooks.services.replay`: operators' paced replays of an organization's events.

The services enqueue the delivery task by its registered name (``WEBHOOK_DELIVER``,
webhooks.task_names; core.tasks_registry) and never import ``webhooks.tasks``, which imports them.
"""

from webhooks.services.delivery import delivery_attempt
from webhooks.services.endpoints import (
    NO_URL_REASON,
    check_public_key,
    check_webhook_url,
    endpoint_get,
    endpoint_public_key_set,
    endpoint_token_rotate,
    endpoint_url_set,
    secret_rotate,
    secrets_current,
    url_in_force,
)
from webhooks.services.events import (
    ACTIONS,
    ETCH_PACKET_EXPIRED,
    ETCH_PACKET_SEAL_FAILED,
    ETCH_PACKET_SEALED,
    GENERATE_PDF_JOB_FINISHED,
    SIGNER_FORWARDED,
    deliveries_filter,
    delivery_get,
    delivery_resend,
    event_emit,
    webhook_test,
)
from webhooks.services.replay import (
    REPLAY_PREFIX,
    Replayed,
    ReplayForbidden,
    events_replay,
    organization_events_replay,
    replay_allowed,
    replay_events_select,
)
from webhooks.services.retries import Recovered, deliveries_recover, retry_delays

__all__ = [
    "ACTIONS",
    "ETCH_PACKET_EXPIRED",
    "GENERATE_PDF_JOB_FINISHED",
    "ETCH_PACKET_SEALED",
    "ETCH_PACKET_SEAL_FAILED",
    "NO_URL_REASON",
    "REPLAY_PREFIX",
    "SIGNER_FORWARDED",
    "Recovered",
    "ReplayForbidden",
    "Replayed",
    "check_public_key",
    "check_webhook_url",
    "deliveries_filter",
    "deliveries_recover",
    "delivery_attempt",
    "delivery_get",
    "delivery_resend",
    "endpoint_get",
    "endpoint_public_key_set",
    "endpoint_token_rotate",
    "endpoint_url_set",
    "event_emit",
    "events_replay",
    "organization_events_replay",
    "replay_allowed",
    "replay_events_select",
    "retry_delays",
    "secret_rotate",
    "secrets_current",
    "url_in_force",
    "webhook_test",
]
