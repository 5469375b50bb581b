"""Schemathesis over /v1/openapi.json finds no server error and no answer that breaks its
documented schema: every operation is sent schemathesis' coverage cases (the boundaries of
every field, valid and invalid) and a few random valid and invalid examples, with real tokens
and real ids in its path (see tests/fuzz.py). The examples are the same on every run
(derandomised). `benchmarks/schemathesis_run.py` runs more of them."""

from __future__ import annotations

import httpx
import pytest

from comptoir.config import Settings
from tests.api.conftest import Shop
from tests.fuzz import EXCLUDED, fuzz

# Random examples per operation and mode (valid, invalid), beside the coverage cases: about
# 2,300 requests, a minute or two per database on a busy machine.
EXAMPLES = 3
COVERAGE_CAP = 60


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Without rate limits: thousands of requests of one connection would otherwise be 429s."""
    return settings.model_copy(update={"rate_limits": "off"})


async def test_schemathesis_finds_no_server_error_nor_schema_violation(client: httpx.AsyncClient, shop: Shop) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    documented = sum(len(item) for item in document["paths"].values())

    # The coverage cases of the long form of a route that has a short one (the same handler)
    # are left out, and at most COVERAGE_CAP of an operation are sent: ~1,650 of ~6,500.
    report = await fuzz(
        client,
        shop,
        EXAMPLES,
        coverage=True,
        coverage_of_twins=False,
        coverage_cap=COVERAGE_CAP,
    )

    assert report.operations == documented - len(EXCLUDED)
    assert [f"{f.operation} [{f.mode}] {f.status}: {f.request}\n{f.problem}" for f in report.failures] == []
    # The examples reached the operations: all but a few answered 2xx at least once.
    assert len(report.successes) >= report.operations - 15
