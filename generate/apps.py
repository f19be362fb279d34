from django.apps import AppConfig


class GenerateConfig(AppConfig):
    name = "generate"

    def ready(self) -> None:
        from generate import tasks  # noqa: F401 - registers its task by name (core.tasks_registry)
