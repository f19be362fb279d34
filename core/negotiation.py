"""Content negotiation that never refuses a request.

Binary endpoints return PDF or ZIP bytes directly and clients send ``Accept: application/pdf``;
DRF's default negotiation would answer 406 before the view runs. Errors are always JSON.
"""

from rest_framework.negotiation import BaseContentNegotiation


class JsonOnlyNegotiation(BaseContentNegotiation):
    def select_parser(self, request, parsers):  # type: ignore[no-untyped-def]
        for parser in parsers:
            if request.content_type.split(";")[0].strip() == parser.media_type:
                return parser
        return None

    def select_renderer(self, request, renderers, format_suffix=None):  # type: ignore[no-untyped-def]
        renderer = renderers[0]
        return renderer, renderer.media_type
