"""The steps of the HTTP conventions middleware, one by one (http/middleware.py); the whole
middleware is tested through the application in tests/api/test_http_conventions.py."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
import structlog
from starlette.types import Message

from comptoir.auth.access import carries_token
from comptoir.auth.request_context import RequestContext, context_of, start
from comptoir.errors import BadRequest, InternalError, RateLimited
from comptoir.http.middleware import (
    CORS,
    BodyTap,
    Responder,
    access_log,
    error_answer,
    etag_matches,
    etag_of,
    overridden_method,
    preflight,
    request_id,
    response_headers,
    tag_request,
    tagged,
    without_trailing_slash,
)
from comptoir.kit import clock
from comptoir.request_logs.buffer import MAX_BODY

ID = (b"x-request-id", b"abc")


class _Sent:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def __call__(self, message: Message) -> None:
        self.messages.append(message)


def test_request_id_is_the_callers_when_sane() -> None:
    assert request_id([(b"x-request-id", b"my-id_1.2")]) == "my-id_1.2"


@pytest.mark.parametrize("given", [b"", b"has space", b"x" * 129, b"caf\xc3\xa9"])
def test_request_id_is_new_when_the_callers_is_not_sane(given: bytes) -> None:
    made = request_id([(b"x-request-id", given)])
    assert len(made) == 16
    assert made != request_id([])
    int(made, 16)


def test_tag_request_makes_the_requests_context_once_with_the_id_and_binds_the_log_context() -> None:
    structlog.contextvars.bind_contextvars(left="over")
    scope: dict[str, Any] = {"state": {"other": 1}, "client": ("203.0.113.9", 4000)}
    context = tag_request(scope, "r1")
    assert context == RequestContext("r1")
    assert context_of(scope) is context
    assert context_of(dict(scope, path="/copied")) is context  # a copy of the scope shares it
    assert scope["state"]["other"] == 1
    assert structlog.contextvars.get_contextvars() == {"request_id": "r1", "client": "203.0.113.9"}


def test_a_request_without_a_client_is_tagged_with_none() -> None:
    tag_request({}, "r2")
    assert structlog.contextvars.get_contextvars() == {"request_id": "r2", "client": None}


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ([(b"x-access-token", b"t")], True),
        ([(b"accept", b"*/*"), (b"authorization", b"Bearer t")], True),
        ([(b"accept", b"*/*"), (b"cookie", b"s=1")], False),
        ([], False),
    ],
)
def test_carries_token_sees_either_token_header(headers: list[tuple[bytes, bytes]], expected: bool) -> None:
    assert carries_token(headers) is expected


@pytest.mark.parametrize(
    ("path", "stripped"), [("/v1/orders/", "/v1/orders"), ("/v1//", "/v1"), ("/", "/"), ("/v1", "/v1")]
)
def test_without_trailing_slash(path: str, stripped: str) -> None:
    scope = {"path": path, "raw_path": path.encode(), "method": "GET"}
    assert without_trailing_slash(scope) == {"path": stripped, "raw_path": stripped.encode(), "method": "GET"}
    assert scope["path"] == path  # the scope it was given is not changed


def test_overridden_method_on_post_is_the_named_one() -> None:
    assert overridden_method("POST", [(b"x-http-method-override", b" patch ")]) == "PATCH"


def test_overridden_method_without_override_or_on_other_methods_is_the_request_method() -> None:
    assert overridden_method("POST", []) == "POST"
    assert overridden_method("PUT", [(b"x-http-method-override", b"DELETE")]) == "PUT"


def test_overridden_method_is_refused_on_get() -> None:
    with pytest.raises(BadRequest) as refused:
        overridden_method("GET", [(b"x-http-method-override", b"DELETE")])
    assert refused.value.message == "X-Http-Method-Override is not accepted on GET"


def test_overridden_method_is_refused_for_a_method_that_cannot_be_named() -> None:
    with pytest.raises(BadRequest) as refused:
        overridden_method("POST", [(b"x-http-method-override", b"trace")])
    assert refused.value.message == "X-Http-Method-Override cannot be 'TRACE'"


def test_preflight_answers_an_options_request_with_a_requested_method() -> None:
    start, body = preflight("OPTIONS", [(b"access-control-request-method", b"POST")], ID)  # type: ignore[misc]
    assert start == {
        "type": "http.response.start",
        "status": 200,
        "headers": [
            (b"access-control-allow-origin", b"*"),
            (b"access-control-allow-methods", b"GET, POST, PUT, PATCH, DELETE, OPTIONS"),
            (b"access-control-max-age", b"86400"),
            (
                b"access-control-allow-headers",
                b"X-Access-Token, Authorization, Content-Type, X-Http-Method-Override, If-None-Match, Idempotency-Key",
            ),
            (b"content-length", b"0"),
            ID,
        ],
    }
    assert body == {"type": "http.response.body", "body": b""}


def test_preflight_allows_the_requested_headers() -> None:
    headers = [(b"access-control-request-method", b"GET"), (b"access-control-request-headers", b"X-Foo")]
    start, _ = preflight("OPTIONS", headers, ID)  # type: ignore[misc]
    assert (b"access-control-allow-headers", b"X-Foo") in start["headers"]


def test_preflight_is_none_for_other_requests() -> None:
    assert preflight("OPTIONS", [], ID) is None
    assert preflight("GET", [(b"access-control-request-method", b"GET")], ID) is None


class _Decision:
    def headers(self) -> list[tuple[bytes, bytes]]:
        return [(b"ratelimit", b"limit=10")]


def test_response_headers_of_the_api_add_the_id_cors_and_rate_limit() -> None:
    given = [(b"content-type", b"application/json")]
    out = response_headers(given, ID, True, _Decision())
    assert out == [*given, ID, *CORS, (b"ratelimit", b"limit=10")]
    assert given == [(b"content-type", b"application/json")]


def test_response_headers_elsewhere_add_only_the_id() -> None:
    assert response_headers([], ID, False, _Decision()) == [ID]


def test_etag_of_is_a_quoted_hash_of_the_body() -> None:
    assert etag_of(b"{}") == etag_of(b"{}") != etag_of(b"[]")
    assert etag_of(b"{}") == b'"' + hashlib.sha1(b"{}", usedforsecurity=False).hexdigest()[:24].encode() + b'"'


@pytest.mark.parametrize(
    ("if_none_match", "matches"),
    [(b'"a"', True), (b'W/"a"', True), (b'"b", "a"', True), (b" * ", True), (b'"b"', False)],
)
def test_etag_matches(if_none_match: bytes, matches: bool) -> None:
    assert etag_matches(if_none_match, b'"a"') is matches


def _start(*headers: tuple[bytes, bytes]) -> Message:
    return {"type": "http.response.start", "status": 200, "headers": list(headers)}


def test_tagged_adds_the_etag_of_the_body() -> None:
    body = {"type": "http.response.body", "body": b"{}"}
    start, sent = tagged(_start((b"content-type", b"application/json")), body, None)
    assert start["headers"] == [(b"content-type", b"application/json"), (b"etag", etag_of(b"{}"))]
    assert sent is body


def test_tagged_keeps_the_endpoints_own_etag() -> None:
    start, _ = tagged(_start((b"etag", b'"v1"')), {"type": "http.response.body", "body": b"{}"}, None)
    assert start["headers"] == [(b"etag", b'"v1"')]


def test_tagged_answers_304_without_body_when_if_none_match_matches() -> None:
    given = _start((b"content-type", b"application/json"), (b"content-length", b"2"), ID)
    start, body = tagged(given, {"type": "http.response.body", "body": b"{}"}, etag_of(b"{}"))
    assert start == {"type": "http.response.start", "status": 304, "headers": [ID, (b"etag", etag_of(b"{}"))]}
    assert body == {"type": "http.response.body", "body": b""}


def test_error_answer_is_the_errors_body_with_the_id_and_extra_headers() -> None:
    start, body = error_answer(InternalError(), [ID, *CORS])
    assert body == {"type": "http.response.body", "body": InternalError().render()}
    assert start == {
        "type": "http.response.start",
        "status": 500,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body["body"])).encode()),
            ID,
            *CORS,
        ],
    }


def test_error_answer_carries_the_errors_own_headers() -> None:
    start, body = error_answer(RateLimited(45, "minute"), [ID])
    assert start == {
        "type": "http.response.start",
        "status": 429,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body["body"])).encode()),
            (b"retry-after", b"45"),
            ID,
        ],
    }


async def test_responder_holds_a_successful_api_get_until_its_body_to_tag_it() -> None:
    sent = _Sent()
    responder = Responder(sent, ID, True, RequestContext("r"), [], "GET")
    await responder.send(_start())
    assert sent.messages == []
    assert responder.started
    assert responder.status == 200
    await responder.send({"type": "http.response.body", "body": b"{}"})
    assert sent.messages == [
        _start(ID, *CORS, (b"etag", etag_of(b"{}"))),
        {"type": "http.response.body", "body": b"{}"},
    ]


async def test_responder_answers_304_and_remembers_it() -> None:
    sent = _Sent()
    responder = Responder(sent, ID, True, RequestContext("r"), [(b"if-none-match", etag_of(b"{}"))], "GET")
    await responder.send(_start())
    await responder.send({"type": "http.response.body", "body": b"{}"})
    assert responder.status == 304
    assert sent.messages[0]["status"] == 304
    assert sent.messages[1] == {"type": "http.response.body", "body": b""}


async def test_responder_tags_no_streamed_body_and_no_other_request() -> None:
    sent = _Sent()
    responder = Responder(sent, ID, True, RequestContext("r"), [], "GET")
    await responder.send(_start())
    await responder.send({"type": "http.response.body", "body": b"{", "more_body": True})
    await responder.send({"type": "http.response.body", "body": b"}"})
    assert [m.get("headers") for m in sent.messages] == [[ID, *CORS], None, None]
    sent = _Sent()
    responder = Responder(sent, ID, False, RequestContext("r", ratelimit=_Decision()), [], "GET")
    await responder.send(_start())
    assert sent.messages == [_start(ID)]


async def test_body_tap_keeps_the_first_10_kb_of_each_body_and_counts_all() -> None:
    async def receive() -> Message:
        return {"type": "http.request", "body": b"a" * (MAX_BODY + 5)}

    sent = _Sent()
    tap = BodyTap(receive, sent)
    assert await tap.receive() == {"type": "http.request", "body": b"a" * (MAX_BODY + 5)}
    await tap.send(_start((b"content-type", b"application/json")))
    await tap.send({"type": "http.response.body", "body": b"{}"})
    assert len(sent.messages) == 2
    scope: dict[str, Any] = {"headers": [(b"content-type", b"text/plain")], "query_string": b"a=1"}
    start(scope, "r1")
    at = clock.now()
    record = tap.record(scope, 7, at, "POST", "/v1/x", 201, 0.0)
    assert (record.connection_id, record.at, record.request_id, record.method, record.path, record.status) == (
        7, at, "r1", "POST", "/v1/x?a=1", 201,
    )  # fmt: skip
    assert (record.request_body, record.request_bytes, record.request_type) == (
        b"a" * MAX_BODY, MAX_BODY + 5, "text/plain",
    )  # fmt: skip
    assert (record.response_body, record.response_bytes, record.response_type) == (b"{}", 2, "application/json")


def test_access_log_is_one_line_with_the_request() -> None:
    with structlog.testing.capture_logs() as lines:
        access_log("GET", "/v1/x", 200, 0.0, 7)
    assert len(lines) == 1
    line = lines[0]
    assert {k: line[k] for k in ("event", "method", "path", "status", "connection_id", "log_level")} == {
        "event": "request",
        "method": "GET",
        "path": "/v1/x",
        "status": 200,
        "connection_id": 7,
        "log_level": "info",
    }
    assert isinstance(line["duration_ms"], float)
