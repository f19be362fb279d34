"""Issue 37's first walk: a signer's finish, read from ``signer_complete`` into every file the
project owns (tests/walks.py says how a walk is counted). Issue 53's goal is at most
``tests.walks.GOAL`` returns; until it is reached the test holds the figure reached (a ratchet).
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
    # Not at the goal: most returns are the stamping's, inside the PDF engines (esign/engine,
    # core/engine: draw, text, fonts, pages), 28 of them.
    check_walk(walk, at_most=58)
