"""Pure engines shared by the apps and their engines: the template field model, fonts, safe URL
fetching, PDF primitives, payload encryption, zips and killable worker processes.

Nothing here imports Django, DRF, graphene or any app (enforced by import-linter).
"""
