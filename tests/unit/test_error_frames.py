"""One frame for every error answer (`errors.framed`): each path only puts it in its own form,
the error's own headers always with it. Through the application: tests/api/test_error_headers.py."""

from __future__ import annotations

from starlette.types import Message

from comptoir.errors import RequestTimeout, ServiceUnavailable, Unauthorized, framed
from comptoir.http.protocol import error_response, over_capacity
from comptoir.http.routing import ErrorResponse
from comptoir.oauth2.service import OAuthError

CHALLENGE = (
    b'Bearer realm="comptoir", error="invalid_token", '
    b'error_description="The access token is invalid or the connection has been revoked"'
)
UNAUTHORIZED = (
    b'{"error_type":"unauthorized","message":"The access token is invalid or the connection has been revoked"}'
)


def test_the_frame_is_the_status_the_json_headers_with_the_errors_own_and_the_body() -> None:
    assert framed(Unauthorized()) == (
        401,
        [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(UNAUTHORIZED)).encode()),
            (b"www-authenticate", CHALLENGE),
        ],
        UNAUTHORIZED,
    )


def test_an_oauth_errors_frame_carries_its_own_headers() -> None:
    status, headers, _ = framed(OAuthError(429, "invalid_client", "Too many", retry_after=30))
    assert (status, headers[2:]) == (429, [(b"cache-control", b"no-store"), (b"retry-after", b"30")])


def test_the_response_of_an_exception_handler_is_the_frame() -> None:
    response = ErrorResponse(Unauthorized())
    assert (response.status_code, response.raw_headers, response.body) == framed(Unauthorized())
    assert response.headers["www-authenticate"] == CHALLENGE.decode()


def test_the_protocols_bytes_are_the_frame_after_the_servers_headers_closing_the_connection() -> None:
    _, _, body = framed(RequestTimeout())
    assert error_response(RequestTimeout(), [(b"server", b"x")]) == (
        b"HTTP/1.1 408 Request Timeout\r\nserver: x\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body
    )
    over = error_response(ServiceUnavailable(), [])
    assert b"\r\nretry-after: 1\r\nconnection: close\r\n\r\n" in over


async def test_a_connection_over_the_cap_gets_the_503_frame_closing_the_connection() -> None:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        raise AssertionError("nothing is read")

    await over_capacity({"type": "http"}, receive, send)
    status, headers, body = framed(ServiceUnavailable())
    assert sent == [
        {"type": "http.response.start", "status": 503, "headers": [*headers, (b"connection", b"close")]},
        {"type": "http.response.body", "body": body},
    ]
    assert (b"retry-after", b"1") in headers
    assert status == 503
