from django.apps import AppConfig


class GenerateConfig(AppConfig):
    name = "generate"
