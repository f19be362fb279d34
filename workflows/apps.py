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
            SIGNING_STATUS_OF_PACKET,
            packet_changed,
            packet_removing,
            signer_handing_over,
        )

        on_packet_status_change(packet_changed, seen_as=SIGNING_STATUS_OF_PACKET)
        on_packet_removing(packet_removing)
        on_signer_handing_over(signer_handing_over)
