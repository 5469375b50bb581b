"""Schemathesis over /v1/openapi.json finds no server error and no answer that breaks its
documented schema: every operation is sent schemathesis' coverage cases (the boundaries of
every field, valid and invalid) and a few random valid and invalid examples, with real tokens
and real ids in its path (see tests/fuzz.py). The examples are the same on every run
(derandomised). `benchmarks/schemathesis_run.py` runs more of them."""

from __future__ import annotations

import httpx
import pytest
import schemathesis

from comptoir.config import Settings
from tests.api.conftest import Shop
from tests.fuzz import EXCLUDED, STATE_DEPENDENT, fuzz

# Valid examples per operation for the refusal measure: about 1,100 requests, under a minute
# (`benchmarks/schemathesis_run.py --positive --examples 25` measures more).
POSITIVE_EXAMPLES = 10
# Random invalid examples per operation, beside the coverage cases (the valid ones are the
# refusal measure's POSITIVE_EXAMPLES): about 2,600 requests, under a minute per database.
EXAMPLES = 3
COVERAGE_CAP = 40


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Without rate limits: thousands of requests of one connection would otherwise be 429s."""
    return settings.model_copy(update={"rate_limits": "off"})


async def test_schemathesis_finds_no_server_error_nor_schema_violation(client: httpx.AsyncClient, shop: Shop) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    documented = sum(len(item) for item in document["paths"].values())

    # The coverage cases of the long form of a route that has a short one (the same handler)
    # are left out, and at most COVERAGE_CAP of an operation are sent, spread evenly over them.
    # Random valid examples are the next test's: POSITIVE_EXAMPLES of every operation, judged
    # by the same checks.
    report = await fuzz(
        client,
        shop,
        EXAMPLES,
        modes=(schemathesis.GenerationMode.NEGATIVE,),
        coverage=True,
        coverage_of_twins=False,
        coverage_cap=COVERAGE_CAP,
    )

    assert report.operations == documented - len(EXCLUDED)
    assert [f"{f.operation} [{f.mode}] {f.status}: {f.request}\n{f.problem}" for f in report.failures] == []


async def test_the_api_refuses_at_most_5_percent_of_what_its_document_allows(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    """Valid examples made from the document (schemathesis' positive mode), with real ids,
    names not yet taken, amounts in the account's currency (tests/fuzz.py `_aim`): the API
    answers at most 5% of them with a 400 or a 422, and never with a server error nor an
    answer that breaks its schema. A refusal is a rule the document does not state (a rule
    across fields such as opening hours' order, or an address that must resolve);
    `benchmarks/schemathesis_run.py --positive` prints them operation by operation."""
    report = await fuzz(client, shop, POSITIVE_EXAMPLES, modes=(schemathesis.GenerationMode.POSITIVE,))

    assert [f"{f.operation} {f.status}: {f.request}\n{f.problem}" for f in report.failures] == []
    # The examples reached the operations: all but a few answered 2xx at least once.
    assert len(report.successes) >= report.operations - 15
    sent, refused = sum(report.positive.values()), sum(report.refused.values())
    assert sent == (report.operations - len(STATE_DEPENDENT)) * POSITIVE_EXAMPLES
    assert refused / sent <= 0.05, "\n".join(f"{r.operation} {r.status}: {r.problem[:200]}" for r in report.refusals)
