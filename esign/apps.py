from django.apps import AppConfig


class EsignConfig(AppConfig):
    name = "esign"
    verbose_name = "E-signatures"
