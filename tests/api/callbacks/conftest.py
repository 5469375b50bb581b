from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import httpx
import pytest

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.config import Settings
from comptoir.db.engine import Database
from tests.api.conftest import Shop
from tests.factories import World
from tests.receiver import Receiver, running_receiver


@dataclass
class Listener:
    """A connection of another client that can subscribe to the shop's events."""

    token: str
    client_id: int

    def headers(self) -> dict[str, str]:
        return {"X-Access-Token": self.token}


async def new_listener(world: World, shop: Shop, name: str) -> Listener:
    """A location-level orders.read connection of a new client, `name`."""
    app_client = await world.client(name=name)
    token = await world.token("location[orders.read]", location=shop.location, client=app_client)
    return Listener(token, app_client.id)


@pytest.fixture
async def listener(world: World, shop: Shop) -> Listener:
    return await new_listener(world, shop, "Listening app")


async def subscribe(
    client: httpx.AsyncClient, token: str, events: dict[str, list[str]], url: str | None = None
) -> None:
    response = await client.post("/v1/callback", json={"url": url, "events": events}, headers={"X-Access-Token": token})
    assert response.status_code == 200, response.text


async def touch_location(client: httpx.AsyncClient, shop: Shop, preparation_time: int) -> None:
    response = await client.patch("/v1/location", json={"preparation_time": preparation_time}, headers=shop.headers())
    assert response.status_code == 200, response.text


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


@pytest.fixture
def fast_retries(settings: Settings) -> Settings:
    """A 1 s retry base (the schedule test) and a 1.5 s receiver timeout: short, yet
    far above the receivers' 0.05-0.4 s answers even on a loaded machine."""
    return settings.model_copy(update={"callback_retry_base_seconds": 1.0, "callback_timeout_seconds": 1.5})


@pytest.fixture
async def worker(fast_retries: Settings, database: Database) -> AsyncIterator[DeliveryWorker]:
    delivery = DeliveryWorker(fast_retries, database, fast_retries.server_key(), poll_interval=0.05)
    task = asyncio.create_task(delivery.run())
    yield delivery
    delivery.stop()
    await asyncio.wait_for(task, 10)
