from django.apps import AppConfig


class BuildersConfig(AppConfig):
    name = "builders"
    verbose_name = "Embedded builders"
