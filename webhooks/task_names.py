"""The name the webhooks delivery task is registered under (core.tasks_registry), written once.

``webhooks.tasks`` registers the task under it and the services (events, delivery, retries)
enqueue and look the task up by it: a renamed or removed name fails at import (and in mypy) on
both sides. It is not kept in ``webhooks.tasks``, which imports the services (their importing it
would close a circle). The value is what the registry knows the task by; never change it without
its task.
"""

from __future__ import annotations

WEBHOOK_DELIVER = "webhooks.deliver"  # webhooks.tasks.webhook_deliver
