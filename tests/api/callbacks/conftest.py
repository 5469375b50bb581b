from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
import pytest
from aiohttp.resolver import ThreadedResolver

from comptoir.callbacks.worker import MAX_RESENDS, DeliveryWorker, resend_wait
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.factories import World
from tests.receiver import Receiver, running_receiver
from tests.waiting import PATIENCE

# A public address the test names resolve to (no DNS beyond loopback on a test machine).
PUBLIC = "93.184.215.14"


def fake_dns(monkeypatch: pytest.MonkeyPatch, names: dict[str, str | None]) -> dict[str, str | None]:
    """The system resolver answers `names` with the given addresses (as a DNS record pointing
    inside the network would), or as for an unknown name when None; at registration and at
    delivery alike. Returns the mapping, which a test may change (a record that changes)."""
    real = ThreadedResolver.resolve

    async def resolve(self: ThreadedResolver, host: str, port: int = 0, family: int = socket.AF_INET) -> Any:
        if host in names:
            address = names[host]
            if address is None:
                raise OSError(socket.EAI_NONAME, "Name or service not known")
            return [{"hostname": host, "host": address, "port": port, "family": socket.AF_INET, "proto": 0, "flags": 0}]
        return await real(self, host, port, family)  # type: ignore[arg-type]

    monkeypatch.setattr(ThreadedResolver, "resolve", resolve)
    return names


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
    """A 1 s retry base and a receiver timeout as long as the tests wait for anything: a
    POST is never cut short because the machine is loaded (the worker shares the test's event
    loop), and one held by the test stays unanswered until it says (the tests of timeouts set
    a short one of their own)."""
    return settings.model_copy(update={"callback_retry_base_seconds": 1.0, "callback_timeout_seconds": PATIENCE})


@pytest.fixture
async def worker(fast_retries: Settings, database: Database) -> AsyncIterator[DeliveryWorker]:
    delivery = DeliveryWorker(fast_retries, database, fast_retries.server_key(), poll_interval=0.05)
    task = asyncio.create_task(delivery.run())
    yield delivery
    delivery.stop()
    await asyncio.wait_for(task, PATIENCE)


async def looked_again(worker: DeliveryWorker) -> None:
    """Until `worker` has looked for due events once more while no lane of it ran, and found
    none: whatever was due when that look began has been sent and recorded by then. A test
    that checks that nothing more is sent waits for this, not for a time."""
    looked = asyncio.Event()
    claim = worker._claim

    async def watched(limit: int) -> list[Any]:
        idle = not worker._lanes
        lanes = await claim(limit)
        if idle and not lanes:
            looked.set()
        return lanes

    worker._claim = watched  # type: ignore[method-assign]
    try:
        worker.poke()
        await asyncio.wait_for(looked.wait(), PATIENCE)
    finally:
        del worker._claim


def past_every_resend(base: float) -> None:
    """Move the clock past the last resend the schedule of `base` could name (each wait
    doubles, up to MAX_RESENDS resends): anything that would ever be sent again is due."""
    clock.travel(timedelta(seconds=sum(resend_wait(base, n) for n in range(1, MAX_RESENDS + 1)) + 1))


# Free-form content as a client sends it: nested, numbers whose text is kept exactly
# (fractions, an exponent, an integer beyond 64 bits, a negative zero), unicode, newlines,
# quotes and backslashes.
FREE_FORM = (
    '{"kitchen": {"line\\n": ["Premi\u00e8re ligne\\nsecond line \u2014 \U0001f355", "tab\\t \\"q\\" \\\\ \\u00e9"],'
    ' "ratio": 1.50, "big": 123456789012345678901234567890, "exp": 1e5, "zero": -0.0, "none": null,'
    ' "deep": [[[{"\u00e9": [true, false, 0.1]}]]]}}'
).encode()
