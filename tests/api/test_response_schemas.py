"""The suite's response check (tests/response_schemas.py) fails a test whose answer drifts
from the schema the OpenAPI document declares for it (docs/architecture.md "Tests")."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic import BaseModel

from tests.api.conftest import Shop
from tests.response_schemas import CheckedASGITransport, CheckedHTTPTransport, ResponseSchemas, SchemaDrift


@pytest.fixture
async def schemas(client: httpx.AsyncClient) -> ResponseSchemas:
    return ResponseSchemas((await client.get("/v1/openapi.json")).json())


def _check(schemas: ResponseSchemas, path: str, status: int, body: Any, method: str = "GET") -> None:
    schemas.check(method, path, status, "application/json", json.dumps(body).encode())


async def test_a_real_answer_passes_and_a_drifted_one_fails(
    client: httpx.AsyncClient, shop: Shop, schemas: ResponseSchemas
) -> None:
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.status_code == 200
    location = response.json()
    _check(schemas, "/v1/location", 200, location)

    without_name = {k: v for k, v in location.items() if k != "name"}
    with pytest.raises(SchemaDrift, match="'name' is a required property"):
        _check(schemas, "/v1/location", 200, without_name)
    with pytest.raises(SchemaDrift, match="Additional properties are not allowed"):
        _check(schemas, "/v1/location", 200, location | {"undocumented": 1})
    with pytest.raises(SchemaDrift, match=r"at \['name'\]"):
        _check(schemas, f"/v1/locations/{shop.location.public_id}", 200, location | {"name": 12})


async def test_error_answers_are_checked_too(schemas: ResponseSchemas) -> None:
    _check(schemas, "/v1/location", 401, {"error_type": "unauthorized", "message": "Unknown token"})
    with pytest.raises(SchemaDrift, match="'message' is a required property"):
        _check(schemas, "/v1/location", 401, {"error_type": "unauthorized"})
    # a status the operation does not list falls under its `4XX`: the same error shape
    _check(schemas, "/v1/location/orders", 409, {"error_type": "conflict", "message": "Conflict"}, "POST")
    with pytest.raises(SchemaDrift, match=r"answered 409 .* Additional properties"):
        _check(schemas, "/v1/location/orders", 409, {"error_type": "conflict", "message": "", "at": 1}, "POST")


async def test_what_the_document_does_not_declare_is_not_checked(schemas: ResponseSchemas) -> None:
    _check(schemas, "/v1/location", 503, {"anything": True})  # no schema for this status
    _check(schemas, "/oauth2/v1/token", 200, {"anything": True})  # not in the document
    schemas.check("GET", "/v1/location", 200, "text/plain", b"not json")  # not a JSON answer
    with pytest.raises(SchemaDrift, match="not JSON"):
        schemas.check("GET", "/v1/location", 200, "application/json; charset=utf-8", b"{")


class _Thing(BaseModel):
    name: str


async def test_the_checked_transport_fails_the_request_that_drifted() -> None:
    app = FastAPI()

    @app.get("/v1/things/{thing_id}", response_model=_Thing)
    async def thing(thing_id: str) -> Any:
        from fastapi.responses import JSONResponse

        return JSONResponse({"name": 1} if thing_id == "drifted" else {"name": thing_id})

    async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
        assert (await http.get("/v1/things/fine")).json() == {"name": "fine"}
        with pytest.raises(SchemaDrift, match=r"GET /v1/things/drifted \(/v1/things/\{thing_id\}\) answered 200"):
            await http.get("/v1/things/drifted")


def test_the_checked_http_transport_reads_the_servers_document_and_fails_a_drift() -> None:
    document = {
        "openapi": "3.1.0",
        "components": {},
        "paths": {"/v1/things/{thing_id}": {"get": {"responses": {"200": {"content": {"application/json": {
            "schema": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        }}}}}}},
    }  # fmt: skip

    class Server(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            answer = document if self.path == "/v1/openapi.json" else {"name": 1 if "drifted" in self.path else "x"}
            body = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base_url = f"http://127.0.0.1:{server.server_port}"
        with httpx.Client(base_url=base_url, transport=CheckedHTTPTransport()) as http:
            assert http.get("/v1/things/fine").json() == {"name": "x"}
            with pytest.raises(SchemaDrift, match=r"at \['name'\]: 1 is not of type 'string'"):
                http.get("/v1/things/drifted")
    finally:
        server.shutdown()
        server.server_close()


def test_no_test_builds_an_unchecked_client_of_the_app() -> None:
    tests = Path(__file__).parents[1]
    unchecked = [
        str(path.relative_to(tests))
        for path in sorted(tests.rglob("*.py"))
        if path.name != "response_schemas.py" and re.search(r"httpx\.ASGITransport\(", path.read_text())
    ]
    assert unchecked == []


def test_an_answer_the_client_model_cannot_read_fails_too() -> None:
    # a document looser than the client's `Account` model (generated from the real document)
    document = {
        "openapi": "3.1.0",
        "components": {"schemas": {"Account": {"type": "object"}}},
        "paths": {"/v1/accounts/{account_id}": {"get": {"responses": {"200": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Account"},
        }}}}}}},
    }  # fmt: skip
    schemas = ResponseSchemas(document)
    _check(schemas, "/v1/accounts/h3sfgk", 200, {"id": "h3sfgk", "name": "Shop", "currency": "EUR"})
    with pytest.raises(SchemaDrift, match=r"GET /v1/accounts/h3sfgk .* the client's model refuses the answer"):
        _check(schemas, "/v1/accounts/h3sfgk", 200, {"id": "h3sfgk"})
