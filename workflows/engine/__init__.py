"""The workflow engine: pure Python, no Django. A workflow's definition (webforms of pages of
fields, the mapping of fields to template aliases, the signing step) as frozen dataclasses with a
JSON form; the rules a webform value must follow, shared with the webform page's script; and
what a submission resolves to (resolved payloads, template data, progress)."""
