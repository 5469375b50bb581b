"""An error answer carries the error's own headers whichever path answers it (docs/api/
conventions.md "Errors", "Rate limits"; docs/architecture.md "Where things are": one frame,
`errors.framed`): a 401 its `WWW-Authenticate`, a 429 its `Retry-After` with the rate-limit
headers, a 503 its `Retry-After`, through every path of a request: a route's permission as a
FastAPI dependency, checked before the body is read (`ComptoirRoute`), a direct route
(`DirectRoute`), and an error raised where no exception handler answers, framed by the
middleware (`HttpConventions`). The 503 of an unreachable database is in
tests/api/test_dependency_outages.py, and that of the connection cap in
tests/security/test_slow_clients.py."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from comptoir.auth.request_context import context_of
from comptoir.errors import ComptoirError, DependencyUnavailable, RateLimited, Unauthorized
from comptoir.http.middleware import HttpConventions
from comptoir.kit import clock
from comptoir.ratelimit.limiter import POLICIES, Decision, RateLimitedWithState
from tests.api.conftest import Shop
from tests.api.test_rate_limits import fill_minute
from tests.factories import World
from tests.response_schemas import CheckedASGITransport

START = datetime(2026, 3, 2, 10, 0, 0, tzinfo=UTC)
ORDER = {"status": "new", "items": [{"product_name": "Soup", "price": "4.50 EUR", "quantity": 1}]}
# (method, path, body): the same permission check on each path a request may take
THROUGH_A_DEPENDENCY = ("GET", "/v1/locations", None)
BEFORE_THE_BODY = ("PATCH", "/v1/location", {"preparation_time": 3})
DIRECT = ("GET", "/v1/location", None)
DIRECT_WITH_A_BODY = ("POST", "/v1/location/orders", ORDER)
PATHS = pytest.mark.parametrize(
    ("method", "path", "body"),
    [THROUGH_A_DEPENDENCY, BEFORE_THE_BODY, DIRECT, DIRECT_WITH_A_BODY],
    ids=["dependency", "before-the-body", "direct", "direct-with-a-body"],
)
INVALID_TOKEN = (
    'Bearer realm="comptoir", error="invalid_token", '
    'error_description="The access token is invalid or the connection has been revoked"'
)
POLICY = '"minute";q=500;w=60, "hour";q=2500;w=3600, "day";q=10000;w=86400'
# 15.5 s into the minute, with the 500 requests of the minute made: 45 s left of it, 3585 of
# the hour, 50385 of the day
FULL = '"minute";r=0;t=45, "hour";r=2000;t=3585, "day";r=9500;t=50385'


def shown(response: httpx.Response, *names: str) -> tuple[int, dict[str, str | None]]:
    return response.status_code, {name: response.headers.get(name) for name in names}


@PATHS
async def test_a_401_carries_www_authenticate_on_every_path(
    client: httpx.AsyncClient, shop: Shop, method: str, path: str, body: Any
) -> None:
    wrong = await client.request(method, path, json=body, headers={"X-Access-Token": "not-a-token"})
    assert shown(wrong, "www-authenticate", "retry-after", "ratelimit") == (
        401, {"www-authenticate": INVALID_TOKEN, "retry-after": None, "ratelimit": None},
    )  # fmt: skip
    missing = await client.request(method, path, json=body)
    assert shown(missing, "www-authenticate") == (401, {"www-authenticate": 'Bearer realm="comptoir"'})
    assert missing.json() == {"error_type": "unauthorized", "message": "The X-Access-Token header is missing"}


@PATHS
async def test_a_429_carries_retry_after_and_the_rate_limit_headers_on_every_path(
    client: httpx.AsyncClient, shop: Shop, app: FastAPI, world: World, method: str, path: str, body: Any
) -> None:
    clock.freeze(START + timedelta(seconds=15.5))
    await fill_minute(app, world, shop.location_token)
    before = await world.snapshot()
    refused = await client.request(method, path, json=body, headers=shop.headers())
    assert shown(refused, "retry-after", "ratelimit-policy", "ratelimit", "www-authenticate") == (
        429, {"retry-after": "45", "ratelimit-policy": POLICY, "ratelimit": FULL, "www-authenticate": None},
    )  # fmt: skip
    assert refused.json() == {
        "error_type": "too_many_requests",
        "message": "Rate limit reached (minute); retry in 45 seconds",
    }
    assert await world.snapshot() == before


# --- framed by the middleware -------------------------------------------------------------------


Raising = Callable[[Callable[[Scope], ComptoirError]], httpx.AsyncClient]


@pytest.fixture
async def framing(app: FastAPI) -> AsyncIterator[Raising]:
    """Clients of the HTTP conventions in front of an application that raises the error
    `made(scope)` where no exception handler answers it (as a body over its limit is refused
    while it is read, outside any handler)."""
    opened: list[httpx.AsyncClient] = []

    def client_of(made: Callable[[Scope], ComptoirError]) -> httpx.AsyncClient:
        async def raising(scope: Scope, receive: Receive, send: Send) -> None:
            raise made(scope)

        conventions = HttpConventions(raising)

        async def served(scope: Scope, receive: Receive, send: Send) -> None:
            await conventions({**scope, "app": app}, receive, send)

        opened.append(httpx.AsyncClient(transport=CheckedASGITransport(app=served), base_url="http://testserver"))
        return opened[-1]

    yield client_of
    for client in opened:
        await client.aclose()


async def test_a_401_framed_by_the_middleware_carries_www_authenticate(
    framing: Raising,
) -> None:
    client = framing(lambda scope: Unauthorized())
    answer = await client.get("/v1/location", headers={"X-Request-Id": "r-401"})
    assert shown(answer, "www-authenticate", "x-request-id", "access-control-allow-origin") == (
        401, {"www-authenticate": INVALID_TOKEN, "x-request-id": "r-401", "access-control-allow-origin": "*"},
    )  # fmt: skip
    assert answer.json() == {
        "error_type": "unauthorized",
        "message": "The access token is invalid or the connection has been revoked",
    }


async def test_a_429_framed_by_the_middleware_carries_retry_after_and_the_rate_limit_headers(
    framing: Raising,
) -> None:
    windows = POLICIES["general"]
    decision = Decision(windows, (500, 500, 500), (45, 3585, 50385))

    def refused(scope: Scope) -> ComptoirError:
        context_of(scope).ratelimit = decision  # as auth.access.authorize leaves it
        return RateLimitedWithState(45, "minute", decision)

    answer = await framing(refused).get("/v1/location")
    assert shown(answer, "retry-after", "ratelimit-policy", "ratelimit") == (
        429, {"retry-after": "45", "ratelimit-policy": POLICY, "ratelimit": FULL},
    )  # fmt: skip
    plain = await framing(lambda scope: RateLimited(7, "heavy-minute")).get("/v1/location")
    assert shown(plain, "retry-after", "ratelimit") == (429, {"retry-after": "7", "ratelimit": None})


async def test_a_503_framed_by_the_middleware_carries_retry_after(
    framing: Raising,
) -> None:
    answer = await framing(lambda scope: DependencyUnavailable("database")).get("/v1/location")
    assert shown(answer, "retry-after", "content-type") == (
        503,
        {"retry-after": "2", "content-type": "application/json"},
    )
    assert answer.json() == {
        "error_type": "service_unavailable",
        "message": "The database is unavailable; retry in a few seconds",
    }
