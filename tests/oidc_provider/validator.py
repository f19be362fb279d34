from typing import Any

from oauth2_provider.oauth2_validators import OAuth2Validator


class ClaimsValidator(OAuth2Validator):
    """The claims an identity provider sends: email (verified), name, and roles."""

    oidc_claim_scope = None  # every claim for every scope: the test's provider is not picky

    def get_additional_claims(self, request: Any) -> dict[str, Any]:
        user = request.user
        return {
            "email": user.email,
            "email_verified": True,
            "given_name": user.first_name,
            "family_name": user.last_name,
            "roles": [group.name for group in user.groups.all()],
        }
