"""Client credentials sent two ways with one of them wrong (docs/api/oauth.md "Token
endpoint"): HTTP Basic with the right secret and a `client_secret` (or a `client_id`) in the
body that differs is `invalid_client` 401 at `/token` and `/revoke`, counted as a failed
client authentication, and changes nothing; the same credentials sent both ways are
accepted (compatible)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import httpx
import pytest
from fastapi import FastAPI

from comptoir.applications.service import client_secret
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.oauth2.conftest import Flow, flow  # noqa: F401 - fixture
from tests.factories import World
from tests.response_schemas import CheckedASGITransport
from tests.unit.test_login_throttle import pauses  # noqa: F401 - fixture

OWNER = "owner@example.com"
WRONG = {"error_type": "unauthorized", "message": "The client id or secret is wrong", "error": "invalid_client"}

From = Callable[[str], AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
def from_address(app: FastAPI) -> From:  # noqa: F811 - fixture
    @asynccontextmanager
    async def make(address: str) -> AsyncIterator[httpx.AsyncClient]:
        transport = CheckedASGITransport(app=app, client=(address, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield http

    return make


def refused(answer: httpx.Response) -> None:
    assert answer.status_code == 401
    assert answer.json() == WRONG
    assert answer.headers["WWW-Authenticate"] == 'Basic realm="comptoir"'
    assert answer.headers["Cache-Control"] == "no-store"


async def _disagreeing(flow: Flow, world: World) -> list[dict[str, str]]:  # noqa: F811
    """Body fields that differ from the right Basic credentials."""
    other = await world.client(name="Another app")
    return [
        {"client_secret": "wrong"},
        {"client_id": flow.client.public_id, "client_secret": "wrong"},
        {"client_id": flow.client.public_id, "client_secret": flow.secret + "x"},
        {"client_id": other.public_id, "client_secret": client_secret(world.key, other)},
        {"client_id": other.public_id},
    ]


async def test_a_wrong_body_secret_beside_right_basic_credentials_is_refused_at_token_and_spends_nothing(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    code = await flow.code(flow.authorize_url("profile"), OWNER)
    disagreeing = await _disagreeing(flow, world)
    before = await world.snapshot()
    for fields in disagreeing:
        refused(await flow.exchange(code, **fields))
    assert await world.snapshot() == before
    exchanged = await flow.exchange(code)  # the code was not spent
    assert exchanged.status_code == 200


async def test_a_wrong_body_secret_beside_right_basic_credentials_is_refused_at_revoke_and_revokes_nothing(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    token = (await flow.exchange(await flow.code(flow.authorize_url("profile"), OWNER))).json()["access_token"]
    fields = await _disagreeing(flow, world)
    before = await world.snapshot()
    for extra in fields:
        answer = await flow.http.post(
            "/oauth2/v1/revoke", data={"token": token, **extra}, auth=(flow.client.public_id, flow.secret)
        )
        refused(answer)
    assert await world.snapshot() == before
    assert (await flow.http.get("/v1/user", headers={"X-Access-Token": token})).status_code == 200


@pytest.mark.parametrize(
    "fields",
    [{"client_id": "ID"}, {"client_id": "ID", "client_secret": "SECRET"}, {"client_secret": "SECRET"}],
    ids=["id", "id-and-secret", "secret"],
)
async def test_the_same_credentials_in_basic_and_in_the_body_are_accepted(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    fields: dict[str, str],
) -> None:
    code = await flow.code(flow.authorize_url("profile"), OWNER)
    same = {k: {"ID": flow.client.public_id, "SECRET": flow.secret}[v] for k, v in fields.items()}
    answer = await flow.exchange(code, **same)
    assert answer.status_code == 200
    assert answer.json()["token_type"] == "Bearer"


@pytest.mark.usefixtures("pauses")
async def test_wrong_body_secrets_beside_right_basic_credentials_count_as_failed_authentications(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
    from_address: From,
) -> None:
    code = await flow.code(flow.authorize_url("profile"), OWNER)
    async with from_address("203.0.113.10") as attacker:
        for _ in range(10):
            answer = await attacker.post(
                "/oauth2/v1/token",
                data={"code": code, "client_secret": "wrong"},
                auth=(flow.client.public_id, flow.secret),
            )
            refused(answer)
        before = await world.snapshot()
        blocked = await attacker.post(
            "/oauth2/v1/token", data={"code": code}, auth=(flow.client.public_id, flow.secret)
        )
        assert blocked.status_code == 429
        assert blocked.json() == {
            "error_type": "too_many_requests",
            "message": "Too many failed client authentications",
            "error": "invalid_client",
        }
        assert await world.snapshot() == before
