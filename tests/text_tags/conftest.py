"""Fixtures of the generate tests the text tag tests use too."""

from tests.generate.conftest import asset_server

__all__ = ["asset_server"]
