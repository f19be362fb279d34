from django.apps import AppConfig


class EsignConfig(AppConfig):
    name = "esign"
