"""Runs the published python-anvil client against our service, as an integrator would.

Executed by the contract tests with the interpreter of .venv-clients (the client's graphql-core
cannot share a process with graphene). Only the base URL is changed: the REST host and the
GraphQL endpoint. Usage: py_client_runner.py <base_url> <api_key> <command> [json-args]
Prints one JSON document: {"result": ...} or {"error": "...", "type": "..."}; binary results
(PDF bytes) are written to the path given in the arguments as "out".
"""

import json
import sys
from pathlib import Path

from python_anvil import constants
from python_anvil.api import Anvil
from python_anvil.api_resources import requests as anvil_requests


def client(base_url: str, api_key: str) -> Anvil:
    for request_class in (anvil_requests.RestRequest, anvil_requests.PlainRequest):
        request_class.API_HOST = base_url
    constants.VALID_HOSTS[:] = [base_url]
    return Anvil(api_key=api_key, endpoint_url=f"{base_url}/graphql")


def main() -> None:
    base_url, api_key, command = sys.argv[1:4]
    args = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    anvil = client(base_url, api_key)
    try:
        if command == "current_user":
            result = anvil.get_current_user()
        elif command == "query":
            result = anvil.query(args["query"], variables=args.get("variables"))
        elif command == "get_cast":
            result = anvil.get_cast(args["eid"], **args.get("kwargs", {}))
        elif command == "get_casts":
            result = anvil.get_casts(**args.get("kwargs", {}))
        elif command == "fill_pdf":
            pdf = anvil.fill_pdf(args["template_id"], args["payload"], **args.get("kwargs", {}))
            Path(args["out"]).write_bytes(pdf)
            result = {"bytes": len(pdf)}
        elif command == "generate_pdf":
            pdf = anvil.generate_pdf(args["payload"])
            Path(args["out"]).write_bytes(pdf)
            result = {"bytes": len(pdf)}
        elif command == "create_etch_packet":
            result = anvil.create_etch_packet(json=json.dumps(args["payload"]))
        elif command == "generate_etch_signing_url":
            result = anvil.generate_etch_signing_url(args["signer_eid"], args["client_user_id"])
        elif command == "get_welds":
            result = anvil.get_welds()
        elif command == "get_weld":
            result = anvil.get_weld(args["eid"])
        elif command == "forge_submit":
            result = anvil.forge_submit(payload=args["payload"])
        elif command == "download_documents":
            data = anvil.download_documents(args["document_group_eid"])
            Path(args["out"]).write_bytes(data)
            result = {"bytes": len(data)}
        else:
            raise SystemExit(f"unknown command {command}")
    except Exception as exc:  # report the client's own error to the test
        report = {"error": str(exc), "type": type(exc).__name__}
    else:
        report = {"result": result}
    sys.stdout.write(json.dumps(report, default=str) + "\n")


if __name__ == "__main__":
    main()
