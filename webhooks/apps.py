from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from webhooks import tasks  # noqa: F401 - registers its task by name (core.tasks_registry)

        # The settings page is accounts'; it shows the sections this app registers.
        from webhooks.views import settings_sections_add

        settings_sections_add()
