from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        # The settings page is accounts'; it shows the sections this app registers.
        from webhooks.views import settings_sections_add

        settings_sections_add()
