from django.apps import AppConfig
from django.urls import register_converter

from core.eids import EidConverter, NameConverter


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        # Before any URLconf is imported: every app's urls.py may use <eid:...> and <name:...>.
        register_converter(EidConverter, "eid")
        register_converter(NameConverter, "name")
        from core import (
            checks,  # noqa: F401 - registers the translation catalogues' check
            table_upkeep,  # noqa: F401 - registers its sweep (core.sweeps)
        )
