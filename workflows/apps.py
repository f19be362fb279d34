from django.apps import AppConfig


class WorkflowsConfig(AppConfig):
    name = "workflows"
