"""Pure engines shared by fill and generate: fonts, safe URL fetching, PDF primitives.

Nothing here imports Django, DRF, graphene or any app (enforced by import-linter).
"""
