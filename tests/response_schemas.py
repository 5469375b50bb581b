"""Every JSON answer a test receives from the app is checked against the schema the app's
OpenAPI document declares for its path, method and status (docs/architecture.md "Tests").

The check runs in the tests, not in the request path: handlers on the hot paths (order POST
and GET, location GET) return pre-rendered dicts and bytes, and validating each answer against
a pydantic model or a JSON schema there would cost more than the rest of the request. The
tests see every shape the API can answer, so a render step that drifts from its documented
read model fails the test that reached it, at no cost to a real request.

`CheckedASGITransport` replaces `httpx.ASGITransport` for the app in process (the `client`
fixture and every other in-process client); `CheckedHTTPTransport` does the same for the real
`comptoir` processes of the end-to-end tests, reading the document each server publishes.

Checked: answers with a JSON body (`Content-Type: application/json`) to a documented path
and method whose status the operation declares with a schema, errors included. Not checked:
paths outside the document (OAuth pages, the back office, `/v1/health`), statuses the
operation does not declare, and bodies of other types (images).

Each answer that passes is then read with the Python client's model of the same schema
(`comptoir_client.models`, generated from the document by scripts/generate_client_models.py),
so every answer the suite sees proves the client can read it.
"""

from __future__ import annotations

import json
import re
import threading
from datetime import datetime
from typing import Any

import httpx
from fastapi import FastAPI
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import best_match
from pydantic import TypeAdapter
from pydantic import ValidationError as ModelError

from comptoir_client import models as client_models
from tests.waiting import PATIENCE

_PARAMETER = re.compile(r"\\{[^/{}]+\\}")


# Formats are asserted, not only annotations: "date", "email", and "date-time" as spec 2 has
# it on the way out (RFC 3339, the offset stated), which jsonschema checks only with an extra
# library.
FORMATS = FormatChecker()
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if _DATE_TIME.fullmatch(value) is None:
        return False
    datetime.fromisoformat(value)  # a real day and time
    return True


class SchemaDrift(AssertionError):
    """An answer that does not match the schema its operation documents."""


class ResponseSchemas:
    """The response schemas of one OpenAPI document, by path, method and status."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        routes = []
        for template in document["paths"]:
            pattern = _PARAMETER.sub("[^/]+", re.escape(template))
            routes.append((template.count("{"), template, re.compile(pattern + "$")))
        # A literal segment wins over a parameter, as in the app's router ("/v1/location"
        # before "/v1/locations/{location_id}" cannot both match one path, but be safe).
        self._routes = [(template, pattern) for _, template, pattern in sorted(routes)]
        self._validators: dict[tuple[str, str, str], Draft202012Validator | None] = {}
        self._client_models: dict[tuple[str, str, str], TypeAdapter[Any] | None] = {}
        self._lock = threading.Lock()  # the end-to-end tests send from threads

    def template_of(self, path: str) -> str | None:
        for template, pattern in self._routes:
            if pattern.match(path):
                return template
        return None

    def validator(self, template: str, method: str, status: int) -> Draft202012Validator | None:
        key = (template, method, str(status))
        with self._lock:
            if key not in self._validators:
                self._validators[key] = self._compile(*key)
            return self._validators[key]

    def _schema(self, template: str, method: str, status: str) -> dict[str, Any] | None:
        operation = self.document["paths"][template].get(method.lower())
        if operation is None:
            return None
        responses = operation.get("responses", {})
        declared = responses.get(status) or responses.get(f"{status[0]}XX")
        return ((declared or {}).get("content", {}).get("application/json") or {}).get("schema")

    def client_model(self, template: str, method: str, status: int) -> TypeAdapter[Any] | None:
        """The client's model of the answer: the generated class named by the schema's `$ref`,
        or a list of it. None where the schema names no component."""
        key = (template, method, str(status))
        with self._lock:
            if key not in self._client_models:
                schema = self._schema(*key) or {}
                many = schema.get("type") == "array"
                ref = (schema.get("items", {}) if many else schema).get("$ref", "")
                adapter = None
                if ref.startswith("#/components/schemas/"):
                    name = ref.rsplit("/", 1)[1]
                    # a model the client lacks is the drift that clients/python/tests/test_client_models.py
                    # reports (and a test's own app names models of its own)
                    model = getattr(client_models, name, None)
                    adapter = None if model is None else TypeAdapter(list[model] if many else model)
                self._client_models[key] = adapter
            return self._client_models[key]

    def _compile(self, template: str, method: str, status: str) -> Draft202012Validator | None:
        schema = self._schema(template, method, status)
        if schema is None:
            return None
        # The operation's schema, with the document's components beside it for its `$ref`s
        # ("#/components/schemas/Order"); JSON Schema 2020-12 is OpenAPI 3.1's dialect.
        root = {**schema, "components": self.document["components"]}
        Draft202012Validator.check_schema(root)
        return Draft202012Validator(root, format_checker=FORMATS)

    def check(self, method: str, path: str, status: int, content_type: str, body: bytes) -> None:
        """Raise SchemaDrift when this answer breaks the schema documented for it."""
        if content_type.split(";")[0].strip().lower() != "application/json":
            return
        template = self.template_of(path)
        if template is None:
            return
        validator = self.validator(template, method, status)
        if validator is None:
            return
        where = f"{method} {path} ({template}) answered {status}"
        try:
            value = json.loads(body)
        except ValueError as error:
            raise SchemaDrift(f"{where} with a body that is not JSON: {error}") from None
        error = best_match(validator.iter_errors(value))
        if error is not None:
            place = "".join(f"[{part!r}]" for part in error.absolute_path) or "the body"
            raise SchemaDrift(
                f"{where} with a body that breaks its documented schema at {place}: {error.message}\n"
                f"schema path: {'/'.join(map(str, error.absolute_schema_path))}\nbody: {body[:2000]!r}"
            )
        model = self.client_model(template, method, status)
        if model is not None:
            try:
                model.validate_json(body)
            except ModelError as failure:
                raise SchemaDrift(f"{where}: the client's model refuses the answer: {failure}") from None

    def check_response(self, request: httpx.Request, status: int, headers: httpx.Headers, body: bytes) -> None:
        method = request.method
        override = request.headers.get("X-Http-Method-Override")
        if method == "POST" and override:  # the app serves it as the named method
            method = override.strip().upper()
        self.check(method, request.url.path, status, headers.get("content-type", ""), body)


_of_app: dict[int, tuple[FastAPI, ResponseSchemas]] = {}
_of_routes: dict[tuple[object, ...], ResponseSchemas] = {}
_of_origin: dict[str, ResponseSchemas] = {}


def routes_of(app: FastAPI) -> tuple[object, ...]:
    """What an app's document is made of: its routes, each by path, methods, name, whether it
    is documented, its response model and its endpoint's code (the same function for every app
    `create_app` builds, closures included; another for a route a test adds)."""
    return tuple(
        (
            type(route).__name__,
            getattr(route, "path", None),
            tuple(sorted(getattr(route, "methods", None) or ())),
            getattr(route, "name", None),
            getattr(route, "include_in_schema", None),
            id(getattr(route, "response_model", None)),
            id(getattr(getattr(route, "endpoint", None), "__code__", None)),
        )
        for route in app.routes
    )


def schemas_of(app: FastAPI) -> ResponseSchemas:
    """The response schemas of an app in process. Every app of the suite is built by
    `create_app`, and apps with the same routes publish the same document: it is made and its
    validators compiled once per set of routes (building it took about 0.4 s, and many tests
    build an app of their own)."""
    known = _of_app.get(id(app))
    if known is None or known[0] is not app:
        routes = routes_of(app)
        schemas = _of_routes.get(routes)
        if schemas is None:
            schemas = _of_routes[routes] = ResponseSchemas(app.openapi())
        known = (app, schemas)
        _of_app[id(app)] = known
    return known[1]


def _answer(response: httpx.Response, body: bytes) -> httpx.Response:
    """The same answer, its body already read, for the client to read as usual."""
    return httpx.Response(
        response.status_code, headers=response.headers, stream=httpx.ByteStream(body), extensions=response.extensions
    )


class CheckedASGITransport(httpx.ASGITransport):
    """The app in process, each answer checked against its documented schema."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        body = await response.aread()  # the app's answer is already in memory
        if isinstance(self.app, FastAPI):
            schemas_of(self.app).check_response(request, response.status_code, response.headers, body)
        return _answer(response, body)


class CheckedHTTPTransport(httpx.HTTPTransport):
    """A real `comptoir` server, each answer checked against the document it publishes."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return response  # a stream's body does not end: read by its client as it comes
        body = response.read()
        self._schemas(request).check_response(request, response.status_code, response.headers, body)
        return _answer(response, body)

    def _schemas(self, request: httpx.Request) -> ResponseSchemas:
        origin = f"{request.url.scheme}://{request.url.netloc.decode('ascii')}"
        schemas = _of_origin.get(origin)
        if schemas is None:
            document = httpx.get(f"{origin}/v1/openapi.json", timeout=PATIENCE)
            document.raise_for_status()
            schemas = _of_origin.setdefault(origin, ResponseSchemas(document.json()))
        return schemas
