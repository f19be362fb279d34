from django.apps import AppConfig


class EsignConfig(AppConfig):
    name = "esign"
    verbose_name = "E-signatures"

    def ready(self) -> None:
        from esign import (
            checks,  # noqa: F401 - registers the seal key's check
            tasks,  # noqa: F401 - registers its tasks by name (core.tasks_registry)
        )
