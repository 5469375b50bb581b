# ruff: noqa: F811 - fixtures imported, then named as parameters
"""docs/operations.md "Production on PostgreSQL and Redis" and "Metrics": the recommended
layout (PostgreSQL, Redis, two `serve --no-worker`, one `comptoir worker --metrics-port`)
shows every documented metric family on the pages an operator scrapes, the worker's
deliveries included."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import TEST_REDIS_URL
from tests.e2e.conftest import Server, free_port
from tests.e2e.test_callback_workers import (  # noqa: F401 - fixtures
    environment,
    patch_location,
    receiver,
    setup_shop,
    start_worker,
)
from tests.receiver import Answer, Receiver
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e
DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def documented_families() -> set[str]:
    """The metric families of docs/operations.md "Metrics"'s table, by the name their
    samples carry (a counter's family drops `_total`)."""
    section = DOCS.read_text().split("\n## Metrics\n", 1)[1].split("\n## ", 1)[0]
    names = re.findall(r"^\| `(comptoir_[a-z_]+)` \| (\w+) \|", section, re.M)
    assert len(names) >= 10, names
    return {name.removesuffix("_total") if kind == "counter" else name for name, kind in names}


def families(url: str) -> dict[str, dict[tuple[str, frozenset[tuple[str, str]]], float]]:
    page = httpx.get(url, timeout=10)
    assert page.status_code == 200, page.text
    return {
        family.name: {(s.name, frozenset(s.labels.items())): s.value for s in family.samples}
        for family in text_string_to_metric_families(page.text)
    }


def test_the_recommended_layout_shows_every_documented_family(  # type: ignore[no-untyped-def]
    start_server: Callable[..., Server],
    start_worker,
    fresh_postgres: str,
    receiver: Receiver,
) -> None:
    env = environment(
        fresh_postgres,
        COMPTOIR_REDIS_URL=TEST_REDIS_URL,
        COMPTOIR_REDIS_PREFIX=f"comptoir-test:{uuid.uuid4().hex}:",
        COMPTOIR_RATE_LIMITS="on",
    )
    writer, listeners = setup_shop(fresh_postgres, receiver, listeners=2)
    receiver.answer("/hook/0", Answer(status=204))
    receiver.answer("/hook/1", Answer(status=204))
    servers = [start_server("--no-worker", env=env) for _ in range(2)]
    metrics_port = free_port()
    start_worker(env, "--metrics-port", str(metrics_port))
    worker_page = f"http://127.0.0.1:{metrics_port}/metrics"
    wait_until(lambda: _answers(worker_page), "the worker's metrics page")
    for minutes in [20, 21, 22]:
        patch_location(servers[0], writer, minutes)
    wait_until(lambda: len(receiver.received) == 6, "six deliveries")
    assert httpx.get(f"{servers[1].base_url}/v1/location", headers={"X-Access-Token": listeners[0]}).status_code == 200

    pages = [families(f"{server.base_url}/metrics") for server in servers] + [families(worker_page)]
    shown = set().union(*pages)
    assert documented_families() - shown == set()
    delivered = pages[2]["comptoir_callback_deliveries"]
    assert delivered[("comptoir_callback_deliveries_total", frozenset({("outcome", "acknowledged")}))] == 6
    assert delivered[("comptoir_callback_deliveries_total", frozenset({("outcome", "dropped")}))] == 0
    # the servers deliver nothing, and say so with zeros rather than no series
    assert (
        pages[0]["comptoir_callback_deliveries"][
            ("comptoir_callback_deliveries_total", frozenset({("outcome", "acknowledged")}))
        ]
        == 0
    )
    assert httpx.get(f"http://127.0.0.1:{metrics_port}/elsewhere", timeout=10).status_code == 404


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
