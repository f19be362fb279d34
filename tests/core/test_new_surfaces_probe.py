"""The cases the probes of issue 46, item 12 found in the new GraphQL fields, each named (the
property test ``test_no_nested_graphql_argument_is_a_500`` in test_no_graphql_input_is_a_500.py finds
them among the arguments of every field inside an answer).

An argument with a default (``etchPacketBatch { rows(offset: 0, limit: 100) }``) given an explicit
null reached the resolver as None, not as its default: a TypeError, a 500 in the answer. Null now
means what leaving the argument out means.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client

from tests.esign.conftest import two_signer_packet
from workflows.demo import demo_workflow_create

pytestmark = pytest.mark.django_db

BATCH = """
mutation($p: JSON!, $r: [JSON!]!) { createEtchPacketBatch(packet: $p, rows: $r) { eid } }
"""


def graphql(client: Client, query: str, variables: dict[str, Any] | None = None) -> Any:
    response = client.post(
        "/graphql",
        data=json.dumps({"query": query, "variables": variables or {}}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content[:500]
    return response.json()


@pytest.mark.parametrize(
    "arguments",
    ["limit: null", "offset: null", "offset: null, limit: null, status: null", "limit: $n"],
)
def test_a_null_page_of_batch_rows_is_the_default_page(api_client: Client, arguments: str) -> None:
    expires = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
    packet = two_signer_packet(isDraft=True, expiresAt=expires)
    created = graphql(api_client, BATCH, {"p": packet, "r": [{"n": "Ada"}, {"n": "Bob"}]})
    eid = created["data"]["createEtchPacketBatch"]["eid"]
    declared = "($e: String!, $n: Int)" if "$n" in arguments else "($e: String!)"

    result = graphql(
        api_client,
        f"query{declared} {{ etchPacketBatch(eid: $e) {{ rows({arguments}) {{ index }} }} }}",
        {"e": eid, "n": None} if "$n" in arguments else {"e": eid},
    )

    assert "errors" not in result, result
    assert [row["index"] for row in result["data"]["etchPacketBatch"]["rows"]] == [0, 1]


def test_a_null_page_of_weld_datas_is_the_default_page(
    api_client: Client, organization: Any, demo_template: Any
) -> None:
    workflow = demo_workflow_create(organization=organization, template=demo_template)

    result = graphql(
        api_client,
        "query($e: String) { weld(eid: $e) { weldDatas(offset: null, limit: null) { eid } } }",
        {"e": workflow.eid},
    )

    assert "errors" not in result, result
    assert result["data"]["weld"]["weldDatas"] == []
