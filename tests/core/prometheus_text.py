"""A /metrics body read as Prometheus reads it: prometheus-client's own parser, plus what that
parser forgives and a scraper's dashboards need: every family has its HELP and TYPE lines, and
every sample line is exactly ``name{label="value",...} value``."""

from __future__ import annotations

import re

from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|NaN|Inf)"
SAMPLE_LINE = re.compile(rf"{_NAME}(?:\{{{_LABEL}(?:,{_LABEL})*,?\}})? {_NUMBER}(?: -?\d+)?")
COMMENT_LINE = re.compile(
    rf"# (?:HELP {_NAME} .+|TYPE {_NAME} (?:counter|gauge|histogram|summary|untyped))"
)


def parse_exposition(text: str) -> dict[str, Metric]:
    """The families of ``text`` by name; fails on a line or a family Prometheus would not take
    as meant."""
    for line in text.splitlines():
        if line.startswith("#"):
            assert COMMENT_LINE.fullmatch(line), f"not a HELP or TYPE line: {line!r}"
        else:
            assert SAMPLE_LINE.fullmatch(line), f"not a sample line: {line!r}"
    families = {family.name: family for family in text_string_to_metric_families(text)}
    for family in families.values():
        assert family.type != "unknown", f"{family.name} has no TYPE line"
        assert family.documentation, f"{family.name} has no HELP line"
    return families
