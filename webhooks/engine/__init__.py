"""Pure Python for webhook deliveries: Standard Webhooks signatures, secrets, Retry-After.

No Django here (import-linter enforces it); callers pass secrets, times and bytes.
"""
