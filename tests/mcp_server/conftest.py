"""The MCP tests' fixtures: ``world`` (an organization with a template, a workflow, a submission
and a sent packet) is the API's property tests' own, so the tools are tried on the same rows."""

from tests.core.test_no_input_is_a_500 import world  # noqa: F401 - a fixture
