"""Issue 37's first walk: a signer's finish, read from ``signer_complete`` (tests/walks.py says
how a walk is counted). It may make half the returns it made when the issue was filed;
``bench/walks.py`` prints the walks whole."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.esign.conftest import DRAWN, sign, token_of
from tests.walks import Walk, check_walk

pytestmark = pytest.mark.django_db


def test_a_signers_finish_is_a_short_walk(create_packet: Any, sign_url: Any) -> None:
    packet = create_packet()
    first, last = (s["eid"] for s in packet["documentGroup"]["signers"])
    body = {"signature": {"typed": "Ada Lovelace"}, "values": {"agreement/title1": "Analyst"}}
    assert sign(Client(), first, token_of(sign_url(first)), body).status_code == 200
    token = token_of(sign_url(last))

    with Walk("signer_complete") as walk:  # the last signer: the packet completes
        response = sign(Client(), last, token, {"signature": {"drawn": DRAWN}})

    assert response.status_code == 200, response.content
    check_walk(walk, returns_when_filed=23)
