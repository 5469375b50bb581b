"""docs/operations.md "Metrics": each family, read from the metrics page the way Prometheus
reads it. Counters are process-wide, so each test compares the page before and after."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import httpx
from fastapi import FastAPI
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text

from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.kit import clock, metrics
from tests.api.conftest import Shop
from tests.api.test_rate_limits import (
    START,
    fill_minute,
)
from tests.factories import World

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(client: httpx.AsyncClient) -> Samples:
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


async def test_requests_are_counted_by_route_template_method_and_status(client: httpx.AsyncClient, shop: Shop) -> None:
    before = await scrape(client)
    for _ in range(3):
        assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert (await client.get("/v1/location/orders/o_nope", headers=shop.headers())).status_code == 404
    after = await scrape(client)
    route = {"route": "/v1/location", "method": "GET"}
    assert delta(before, after, "comptoir_http_requests_total", status="200", **route) == 3
    assert delta(before, after, "comptoir_http_request_duration_seconds_count", **route) == 3
    order = {"route": "/v1/location/orders/{order_id}", "method": "GET", "status": "404"}
    assert delta(before, after, "comptoir_http_requests_total", **order) == 1
    assert "o_nope" not in (await client.get("/metrics")).text


async def test_unknown_paths_and_methods_share_fixed_labels(client: httpx.AsyncClient) -> None:
    before = await scrape(client)
    for n in range(5):
        assert (await client.get(f"/v1/made-up-{n}")).status_code == 404
    assert (await client.request("BREW", "/v1/health")).status_code == 404
    after = await scrape(client)
    labels = {"route": "unmatched", "method": "GET", "status": "404"}
    assert delta(before, after, "comptoir_http_requests_total", **labels) == 5
    assert delta(before, after, "comptoir_http_requests_total", route="/v1/health", method="other", status="404") == 1
    page = (await client.get("/metrics")).text
    assert "made-up" not in page
    assert "BREW" not in page


async def test_rate_limit_refusals_are_counted_by_kind(
    client: httpx.AsyncClient, shop: Shop, app: FastAPI, world: World
) -> None:
    clock.freeze(START)
    await fill_minute(app, world, shop.location_token)
    before = await scrape(client)
    for _ in range(2):
        assert (await client.get("/v1/location", headers=shop.headers())).status_code == 429
    after = await scrape(client)
    assert delta(before, after, "comptoir_rate_limit_refusals_total", kind="general") == 2
    assert delta(before, after, "comptoir_rate_limit_refusals_total", kind="heavy") == 0


async def test_engine_connections_in_use_and_their_checkouts(client: httpx.AsyncClient, database: Database) -> None:
    clock.freeze()  # the scrapes below fall within the second one reading of the database serves
    before = await scrape(client)
    async with database.transaction(write=False) as session:
        await session.execute(text("SELECT 1"))
        during = await scrape(client)  # its own transaction holds one more, then gives it back
    after = await scrape(client)
    in_use = "comptoir_db_connections_in_use"
    assert value(during, in_use, pool="engine") - value(before, in_use, pool="engine") == 1
    assert value(after, in_use, pool="engine") == value(before, in_use, pool="engine")
    # the first scrape read the oldest undelivered event, the next two use its reading: ours only
    assert delta(before, after, "comptoir_db_connection_acquire_seconds_count", pool="engine") == 1


async def test_scrapes_read_the_database_once_a_second(client: httpx.AsyncClient) -> None:
    clock.freeze()
    before = await scrape(client)
    pages = await asyncio.gather(*(client.get("/metrics") for _ in range(20)))
    assert [page.status_code for page in pages] == [200] * 20
    within = await scrape(client)
    checkouts = "comptoir_db_connection_acquire_seconds_count"
    assert delta(before, within, checkouts, pool="engine") == 0  # 21 scrapes, no query
    clock.travel(timedelta(seconds=1))
    after = await scrape(client)
    assert delta(within, after, checkouts, pool="engine") == 1  # a second later, read again


async def test_direct_pool_connections_are_counted_on_postgresql(
    client: httpx.AsyncClient, shop: Shop, db_kind: str
) -> None:
    before = await scrape(client)
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    after = await scrape(client)
    checkouts = delta(before, after, "comptoir_db_connection_acquire_seconds_count", pool="direct")
    assert checkouts == (0 if db_kind == "sqlite" else 1)  # the token lookup; SQLite reads without a pool
    assert value(after, "comptoir_db_connections_in_use", pool="direct") == 0


async def test_the_event_loop_lag_is_how_late_a_timer_fired() -> None:
    metrics.LOOP_LAG.set(-1.0)  # none measured yet
    started = time.perf_counter()
    watcher = asyncio.create_task(metrics.watch_loop_lag(0.01))
    await asyncio.sleep(0)  # the watcher's timer is set
    time.sleep(0.2)  # noqa: ASYNC251 -- blocking the loop past the timer is the point
    try:
        # read as soon as the watcher has woken once (the loop turns once per sleep(0): the
        # watcher's next timer needs more turns than that, so this is its first measure)
        while (lag := metrics.LOOP_LAG._value.get()) == -1.0:  # noqa: ASYNC110 -- turn by turn
            await asyncio.sleep(0)
        waited = time.perf_counter() - started
    finally:
        watcher.cancel()
    assert 0.2 - 0.01 <= lag <= waited  # blocked 0.2 s past a 0.01 s timer; at most what passed


async def test_metrics_off_serves_no_page_and_counts_nothing(settings: Settings, database: Database) -> None:
    from comptoir.app import create_app
    from tests.response_schemas import CheckedASGITransport

    app = create_app(settings.model_copy(update={"metrics_path": ""}), database=database, background=False)
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
        metrics.flush_requests()
        counted = metrics.REQUESTS.labels("/v1/health", "GET", "200")._value.get()
        assert (await http.get("/v1/health")).status_code == 200
        assert (await http.get("/metrics")).status_code == 404
        metrics.flush_requests()
        assert metrics.REQUESTS.labels("/v1/health", "GET", "200")._value.get() == counted
    await app.state.comptoir.fast.close()
