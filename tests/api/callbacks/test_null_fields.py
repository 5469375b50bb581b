"""docs/api/conventions.md "Null fields" on callbacks: `url: null` makes the callback passive
(its own meaning), and a required field sent as null is a 422 naming it."""

from __future__ import annotations

import httpx
import pytest

from tests.api.callbacks.conftest import PUBLIC, Listener, fake_dns
from tests.factories import World


@pytest.fixture(autouse=True)
def public_names(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_dns(monkeypatch, {"pos.example": PUBLIC})


async def test_a_null_url_makes_an_active_callback_passive(client: httpx.AsyncClient, listener: Listener) -> None:
    active = {"url": "https://pos.example/hooks", "events": {"order": ["create"]}}
    assert (await client.post("/v1/callback", json=active, headers=listener.headers())).status_code == 200
    response = await client.post(
        "/v1/callback", json={"url": None, "events": {"order": ["create"]}}, headers=listener.headers()
    )
    assert response.status_code == 200
    passive = {"url": None, "events": {"order": ["create"]}, "disabled_at": None, "disabled_reason": None}
    assert response.json() == passive
    assert (await client.get("/v1/callback", headers=listener.headers())).json() == passive


async def test_null_events_are_422_naming_them(client: httpx.AsyncClient, listener: Listener, world: World) -> None:
    before = await world.snapshot()
    response = await client.post("/v1/callback", json={"url": None, "events": None}, headers=listener.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "events", "message": "must be a JSON object mapping resource types to arrays of event types"}
    ]
    assert await world.snapshot() == before


@pytest.mark.parametrize("field", ["from", "to"])
async def test_a_null_bound_of_a_replay_is_422_naming_it(
    client: httpx.AsyncClient, listener: Listener, world: World, field: str
) -> None:
    body = {"from": "2026-06-24T00:00:00Z", "to": "2026-06-25T00:00:00Z", field: None}
    await client.post("/v1/callback", json={"url": None, "events": {"order": ["create"]}}, headers=listener.headers())
    before = await world.snapshot()
    response = await client.post("/v1/callback/replay", json=body, headers=listener.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": field, "message": "is required"}]
    assert await world.snapshot() == before
