from django.apps import AppConfig


class FillConfig(AppConfig):
    name = "fill"
