"""A real server's 429 becomes RateLimited with its Retry-After when the client may not wait
that long (docs/api/conventions.md "Rate limits": the order list is a heavy query, 10 a
minute). test_client_retries.py shows the wait itself against scripted answers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from client_live_server import Live, serving

from comptoir_client import Comptoir, RateLimited, Retries

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    cwd = tmp_path_factory.mktemp("client-limited")
    with serving(cwd, f"sqlite:///{cwd}/comptoir.db", COMPTOIR_RATE_LIMITS="on") as running:
        yield running


def list_until_refused(client: Comptoir, location_id: str) -> None:
    for _ in range(25):  # a new minute may reset the bucket once
        list(client.orders.list(location_id))


def test_a_429_beyond_the_allowed_wait_raises_rate_limited(limited: Live) -> None:
    with limited.client(retries=Retries(max_rate_limit_wait=0)) as client, pytest.raises(RateLimited) as raised:
        list_until_refused(client, limited.location_id)
    assert raised.value.retry_after is not None
    assert 1 <= raised.value.retry_after <= 60
    assert (raised.value.status, raised.value.error_type) == (429, "too_many_requests")
    assert raised.value.request_id
