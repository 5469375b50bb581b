"""A sandbox started in process (`comptoir.sandbox.service.start`), on a temporary SQLite
file or on a PostgreSQL database the sandbox creates, and its app."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from comptoir.app import create_app
from comptoir.callbacks.worker import DeliveryWorker
from comptoir.config import Settings
from comptoir.db.server_key import load_data_key
from comptoir.sandbox.seed import Seed, read_seed
from comptoir.sandbox.service import Sandbox, start
from tests import apps, databases
from tests.conftest import PATIENT_BOUNDS, RUN_ID, postgres_url
from tests.receiver import Answer, Receiver, running_receiver
from tests.response_schemas import CheckedASGITransport
from tests.waiting import PATIENCE

EXAMPLE = Path(__file__).parents[2] / "examples" / "pizzeria.seed.json"


def example() -> dict[str, Any]:
    return copy.deepcopy(json.loads(EXAMPLE.read_text()))


@pytest.fixture
def base_settings() -> Settings:
    """What the process would read from its environment: no database, no key of its own."""
    return Settings(redis_url=None, rate_limits="on", redis_prefix=f"comptoir-test:{RUN_ID}:", **PATIENT_BOUNDS)


@pytest.fixture
def sandbox_url(db_kind: str) -> Iterator[str | None]:
    """None: a temporary SQLite file; else a PostgreSQL database the sandbox will create."""
    if db_kind == "sqlite":
        yield None
        return
    name = databases.new_name()
    databases._registered.add(name)  # dropped at the end, whatever happens
    yield postgres_url(name)
    asyncio.run(databases.drop(name))


@pytest.fixture
def write_seed(tmp_path: Path) -> Callable[[dict[str, Any]], Seed]:
    def write(data: dict[str, Any]) -> Seed:
        path = tmp_path / "seed.json"
        path.write_text(json.dumps(data))
        return read_seed(path)

    return write


@pytest.fixture
async def sandbox(base_settings: Settings, sandbox_url: str | None) -> AsyncIterator[Sandbox]:
    started, _key = await start(base_settings, read_seed(EXAMPLE), sandbox_url)
    yield started
    await started.close()


@pytest.fixture
async def client(sandbox: Sandbox) -> AsyncIterator[httpx.AsyncClient]:
    app = apps.shared(create_app(sandbox.settings, database=sandbox.db, background=False, sandbox=sandbox))
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
        yield http
    await app.state.comptoir.fast.close()


def token(sandbox: Sandbox, connection: str) -> dict[str, str]:
    return {"X-Access-Token": sandbox.answer["connections"][connection]["access_token"]}


@pytest.fixture
async def worker(sandbox: Sandbox) -> AsyncIterator[DeliveryWorker]:
    """The worker as the sandbox's app makes it (`create_app`), on the test's event loop."""
    key = await load_data_key(sandbox.db, sandbox.settings.server_key())
    settings = sandbox.settings.model_copy(update={"callback_timeout_seconds": PATIENCE})
    running = DeliveryWorker(settings, sandbox.db, key, observe=sandbox.deliveries.record)
    sandbox.worker = running
    task = asyncio.create_task(running.run())
    yield running
    running.stop()
    await task


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


async def order_for_the_courier(
    sandbox: Sandbox,
    client: httpx.AsyncClient,
    receiver: Receiver,
    answer: Answer | Callable[[int], Answer] | None = None,
) -> None:
    """An order placed by the Paris point of sale, whose creation the delivery app's
    callback (`/courier` of `receiver`, answering `answer`, else as it answers) receives."""
    if answer is not None:
        receiver.answer("/courier", answer)
    courier = token(sandbox, "delivery_app")  # told of the orders the point of sale takes
    subscribed = await client.post(
        "/v1/callback", json={"url": receiver.url("/courier"), "events": {"order": ["create"]}}, headers=courier
    )
    assert subscribed.status_code == 200
    pos = token(sandbox, "pos_paris")
    assert (
        await client.post("/v1/location/orders", json={"status": "new", "items": []}, headers=pos)
    ).status_code == 200
