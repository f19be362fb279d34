from django.apps import AppConfig


class WorkflowsConfig(AppConfig):
    name = "workflows"
    verbose_name = "Workflows"

    def ready(self) -> None:
        # A workflow's signing step follows its packet at once (weldComplete is written in the
        # transaction of the last signature), not only when the submission is next looked at.
        from esign.packets import (
            on_packet_removing,
            on_packet_status_change,
            on_signer_handing_over,
        )
        from workflows.submissions.finish import (
            packet_changed,
            packet_removing,
            signer_handing_over,
        )

        on_packet_status_change(packet_changed)
        on_packet_removing(packet_removing)
        on_signer_handing_over(signer_handing_over)
