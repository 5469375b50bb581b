"""docs/operations.md "Metrics": the callback families, read from the metrics page."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.kit import clock, metrics
from tests.api.callbacks.conftest import Listener, subscribe, touch_location
from tests.api.conftest import Shop
from tests.api.test_metrics import Samples, delta, scrape, value
from tests.api.test_rate_limits import START
from tests.receiver import Answer, Receiver
from tests.waiting import PATIENCE, eventually


async def test_oldest_undelivered_event_age_is_read_at_scrape_time(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver
) -> None:
    assert value(await scrape(client), metrics.OLDEST_UNDELIVERED) == 0
    receiver.answer("/hook", Answer(status=500))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    clock.freeze(START)
    await touch_location(client, shop, 60)
    clock.freeze(START + timedelta(seconds=30))
    await touch_location(client, shop, 61)
    clock.freeze(START + timedelta(seconds=95.5))
    assert value(await scrape(client), metrics.OLDEST_UNDELIVERED) == 95.5
    # a passive callback's events are the client's to fetch, not the worker's to deliver
    await subscribe(client, listener.token, {"location": ["update"]})
    assert value(await scrape(client), metrics.OLDEST_UNDELIVERED) == 95.5  # that second's reading
    clock.freeze(START + timedelta(seconds=96.5))  # read again a second later
    assert value(await scrape(client), metrics.OLDEST_UNDELIVERED) == 0


@pytest.fixture
async def delivering(settings: Settings, database: Database) -> AsyncIterator[DeliveryWorker]:
    # a POST is never cut short while the test holds its answer
    fast = settings.model_copy(update={"callback_retry_base_seconds": 60.0, "callback_timeout_seconds": PATIENCE})
    delivery = DeliveryWorker(fast, database, fast.server_key(), poll_interval=0.05)
    task = asyncio.create_task(delivery.run())
    yield delivery
    delivery.stop()
    await asyncio.wait_for(task, PATIENCE)


async def test_deliveries_are_counted_by_outcome_and_in_flight_while_sent(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, delivering: DeliveryWorker
) -> None:
    before = await scrape(client)
    answer_the_second = threading.Event()
    receiver.answer("/hook", lambda n: Answer(status=500, hold=answer_the_second) if n else Answer(status=200))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 60)
    await asyncio.to_thread(receiver.wait_for, "/hook", 1)
    await touch_location(client, shop, 61)
    await asyncio.to_thread(receiver.wait_for, "/hook", 2)
    try:
        during = await scrape(client)  # the second POST is unanswered until the test says
    finally:
        answer_the_second.set()
    after: Samples = {}

    async def retry_counted() -> bool:
        nonlocal after
        after = await scrape(client)
        return delta(before, after, "comptoir_callback_deliveries_total", outcome="retry") == 1

    await eventually(retry_counted, "the retry counted")
    assert value(during, "comptoir_callback_attempts_in_flight") == 1
    assert value(after, "comptoir_callback_attempts_in_flight") == 0
    assert delta(before, after, "comptoir_callback_deliveries_total", outcome="acknowledged") == 1
    assert delta(before, after, "comptoir_callback_deliveries_total", outcome="retry") == 1
    assert delta(before, after, "comptoir_callback_deliveries_total", outcome="dropped") == 0
