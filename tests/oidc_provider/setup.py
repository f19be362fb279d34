"""Run with the provider's settings: make its tables, a person (with roles) and a client."""

import json
import sys

import django

django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from oauth2_provider.models import Application  # noqa: E402

config = json.loads(sys.argv[1])
call_command("migrate", verbosity=0)
for person in config["people"]:
    user = User.objects.create_user(
        username=person["username"],
        password=person["password"],
        email=person["email"],
        first_name=person.get("first_name", ""),
        last_name=person.get("last_name", ""),
    )
    for role in person.get("roles", []):
        user.groups.add(Group.objects.get_or_create(name=role)[0])
for client in config["clients"]:
    Application.objects.create(
        name=client["client_id"],
        client_id=client["client_id"],
        client_secret=client["client_secret"],
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=client["redirect_uri"],
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=True,
    )
