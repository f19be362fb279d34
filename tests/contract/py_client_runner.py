"""Runs the published python-anvil client against our service, as an integrator would.

Executed by the contract tests with the interpreter of .venv-clients (the client's graphql-core
cannot share a process with graphene). Only the base URL is changed, with the lines of
docs/clients.md as an integrator copies them (test_client_setup.py keeps the two equal).
Usage: py_client_runner.py <base_url> <api_key> <command> [json-args]
Prints one JSON document: {"result": ...} or {"error": "...", "type": "..."}; binary results
(PDF bytes) are written to the path given in the arguments as "out".
"""

import inspect
import json
import sys
from pathlib import Path

import python_anvil.http
from python_anvil import constants
from python_anvil.api import Anvil
from python_anvil.api_resources.requests import PlainRequest, RestRequest
from python_anvil.http import HTTPClient
from ratelimit import limits, sleep_and_retry


def pacing() -> dict:
    """How many calls a period every client lets through: the limiter of ratelimit's
    ``limits`` in the closure of ``HTTPClient.do_request`` (under ``sleep_and_retry``)."""
    limited = HTTPClient.do_request.__wrapped__
    [limiter] = [
        cell.cell_contents
        for cell in limited.__closure__
        if hasattr(cell.cell_contents, "clamped_calls")
    ]
    return {"calls": limiter.clamped_calls, "period": limiter.period}


def main() -> None:
    BASE_URL, API_KEY, command = sys.argv[1:4]  # the names docs/clients.md uses
    args = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    # docs/clients.md, python-anvil: begin
    RestRequest.API_HOST = BASE_URL  # fill_pdf, generate_pdf: {BASE_URL}/api/v1/...
    PlainRequest.API_HOST = BASE_URL  # download_documents: {BASE_URL}/api/document-group/...
    python_anvil.http.GRAPHQL_ENDPOINT = f"{BASE_URL}/graphql"  # an Anvil made without endpoint_url
    anvil = Anvil(api_key=API_KEY, endpoint_url=f"{BASE_URL}/graphql")  # every GraphQL call
    # docs/clients.md, python-anvil: end
    try:
        if command == "current_user":
            result = anvil.get_current_user()
        elif command == "query":
            result = anvil.query(args["query"], variables=args.get("variables"))
        elif command == "mutate":
            result = anvil.mutate(args["query"], variables=args.get("variables") or {})
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
        elif command == "pacing":
            # What Anvil(environment=...) paces at; then with docs/clients.md's replacement.
            Anvil(api_key=API_KEY, environment=args["environment"])
            result = {"as_installed": pacing()}
            # docs/clients.md, pacing: begin
            unpaced = inspect.unwrap(HTTPClient.do_request)
            HTTPClient.do_request = sleep_and_retry(limits(calls=40, period=1)(unpaced))
            # docs/clients.md, pacing: end
            result["replaced"] = pacing()
        elif command == "request_fully_qualified":
            constants.VALID_HOSTS.append(BASE_URL)  # the host allowed: it still cannot work
            result = anvil.request_fully_qualified().get(args["url"])
        elif command == "client_request":
            url = args["url"]
            # docs/clients.md, full URL: begin
            content, status_code, headers = anvil.client.request("GET", url)
            # docs/clients.md, full URL: end
            result = {"status": status_code, "bytes": len(content), "type": headers["Content-Type"]}
        else:
            raise SystemExit(f"unknown command {command}")
    except Exception as exc:  # report the client's own error to the test
        report = {"error": str(exc), "type": type(exc).__name__}
    else:
        report = {"result": result}
    sys.stdout.write(json.dumps(report, default=str) + "\n")


if __name__ == "__main__":
    main()
