"""What people submit: a workflow's submissions ("weldData") and their webforms' rows, saved
(``save``: webform_save, forgeSubmit, removeWeldData), read (``reads``), moved through their
statuses (``lifecycle``), finished into documents or a signing step (``finish``), reported as
webhook events (``events``), reached by their continue links (``links``), limited per client
(``limit``) and downloaded (``files``).

The face for other apps: forgeSubmit as the MCP server calls it (its arguments' JSON schema,
from their model, included), and a submission's continue URL. Modules of workflows import the
modules themselves, never this face.
"""

from workflows.engine.forge_arguments import arguments_schema as forge_submit_schema
from workflows.submissions.links import continue_url
from workflows.submissions.save import ForgeSubmitInput, forge_submit

__all__ = ["ForgeSubmitInput", "continue_url", "forge_submit", "forge_submit_schema"]
