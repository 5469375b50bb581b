"""spec 8.2 and docs/api/conventions.md "Rate limits": aligned windows, heavy and image policies,
refusals that count nowhere; on the in-process backend and on a real Redis."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis

from comptoir.errors import RateLimited
from comptoir.kit import clock, outages
from comptoir.ratelimit import GENERAL, HEAVY, IMAGE, Decision, RateLimiter
from comptoir.ratelimit.limiter import REPLAYED
from comptoir.ratelimit.memory import MemoryBackend
from comptoir.ratelimit.redis import RedisBackend
from tests.conftest import TEST_REDIS_URL

START = datetime(2026, 3, 2, 10, 0, 0, tzinfo=UTC)  # a round hour
# Redis is up here: a wait, however long a loaded machine makes it, is never an outage whose
# local counting would split the counts these tests assert (tests/api/test_dependency_outages.py)
SHARED_COUNTS_TIMEOUT = 60.0


@pytest.fixture(params=["memory", "redis"])
async def limiter(request: pytest.FixtureRequest) -> AsyncIterator[RateLimiter]:
    prefix = f"comptoir-test:{uuid.uuid4().hex}:"
    if request.param == "memory":
        yield RateLimiter(MemoryBackend(), prefix=prefix)
        return
    limiter = RateLimiter(RedisBackend(TEST_REDIS_URL, timeout=SHARED_COUNTS_TIMEOUT), prefix=prefix)
    yield limiter
    keys = [key async for key in limiter.backend.client.scan_iter(f"{prefix}*")]  # type: ignore[attr-defined]
    if keys:
        await limiter.backend.client.delete(*keys)  # type: ignore[attr-defined]
    await limiter.close()


async def hits(limiter: RateLimiter, n: int, kind: str = GENERAL, connection: int = 1) -> None:
    """n allowed hits, concurrently (within one window, the order does not matter)."""
    await asyncio.gather(*(limiter.hit(connection, kind) for _ in range(n)))


async def test_500_per_minute_then_429_until_the_minute_ends(limiter: RateLimiter) -> None:
    clock.freeze(START + timedelta(seconds=17.3))
    await hits(limiter, 500)
    with pytest.raises(RateLimited) as refused:
        await limiter.hit(1)
    assert refused.value.retry_after == 43  # to 10:01:00
    assert refused.value.window == "minute"
    clock.freeze(START + timedelta(minutes=1))
    decision = await limiter.hit(1)
    assert decision is not None
    assert dict(zip([w.name for w in decision.windows], decision.counts, strict=True)) == {
        "minute": 1,
        "hour": 501,
        "day": 501,
    }


async def test_refused_requests_count_toward_no_window(limiter: RateLimiter) -> None:
    clock.freeze(START)
    await hits(limiter, 500)
    for _ in range(3):
        with pytest.raises(RateLimited):
            await limiter.hit(1)
    clock.freeze(START + timedelta(minutes=1))
    decision = await limiter.hit(1)
    assert decision is not None
    assert decision.counts == (1, 501, 501)


async def test_2500_per_hour_aligned_on_the_round_hour(limiter: RateLimiter) -> None:
    for minute in range(5):
        clock.freeze(START + timedelta(minutes=minute, seconds=30))
        await hits(limiter, 500)
    clock.freeze(START + timedelta(minutes=59, seconds=50))
    with pytest.raises(RateLimited) as refused:
        await limiter.hit(1)
    assert (refused.value.window, refused.value.retry_after) == ("hour", 10)
    clock.freeze(START + timedelta(hours=1))
    assert await limiter.hit(1) is not None


async def test_10000_per_utc_day(limiter: RateLimiter) -> None:
    day = datetime(2026, 3, 2, 0, 0, tzinfo=UTC)
    for hour in range(4):
        for minute in range(5):
            clock.freeze(day + timedelta(hours=hour, minutes=minute))
            await hits(limiter, 500)
    clock.freeze(day + timedelta(hours=23, minutes=59, seconds=30))
    with pytest.raises(RateLimited) as refused:
        await limiter.hit(1)
    assert (refused.value.window, refused.value.retry_after) == ("day", 30)
    clock.freeze(day + timedelta(days=1))
    assert await limiter.hit(1) is not None


async def test_heavy_queries_have_10_per_minute_and_count_toward_the_general_limits(limiter: RateLimiter) -> None:
    clock.freeze(START + timedelta(seconds=50))
    await hits(limiter, 10, HEAVY)
    with pytest.raises(RateLimited) as refused:
        await limiter.hit(1, HEAVY)
    assert (refused.value.window, refused.value.retry_after) == ("heavy-minute", 10)
    decision = await limiter.hit(1, GENERAL)  # light requests still pass
    assert decision is not None
    assert decision.counts == (11, 11, 11)


async def test_images_have_their_own_limits_outside_the_general_ones(limiter: RateLimiter) -> None:
    clock.freeze(START)
    await hits(limiter, 500)
    assert await limiter.hit(1, IMAGE) is not None  # general minute is full, images are not
    await hits(limiter, 2999, IMAGE)
    with pytest.raises(RateLimited) as refused:
        await limiter.hit(1, IMAGE)
    assert refused.value.window == "image-minute"


async def test_connections_are_limited_separately(limiter: RateLimiter) -> None:
    clock.freeze(START)
    await hits(limiter, 500, connection=1)
    assert await limiter.hit(2) is not None


async def test_disabled_limiter_never_refuses() -> None:
    limiter = RateLimiter(MemoryBackend(), enabled=False)
    for _ in range(600):
        assert await limiter.hit(1) is None


async def test_headers_follow_the_ietf_draft(limiter: RateLimiter) -> None:
    clock.freeze(START + timedelta(seconds=20))
    decision = await limiter.hit(7, HEAVY)
    assert decision is not None
    assert dict(decision.headers()) == {
        b"ratelimit-policy": b'"minute";q=500;w=60, "hour";q=2500;w=3600, "day";q=10000;w=86400, "heavy-minute";q=10;w=60',
        b"ratelimit": b'"minute";r=499;t=40, "hour";r=2499;t=3580, "day";r=9999;t=50380, "heavy-minute";r=9;t=40',
    }


async def test_two_redis_limiters_share_counters_atomically() -> None:
    prefix = f"comptoir-test:{uuid.uuid4().hex}:"
    first = RateLimiter(RedisBackend(TEST_REDIS_URL, timeout=SHARED_COUNTS_TIMEOUT), prefix=prefix)
    second = RateLimiter(RedisBackend(TEST_REDIS_URL, timeout=SHARED_COUNTS_TIMEOUT), prefix=prefix)
    clock.freeze(START)

    async def attempt(limiter: RateLimiter) -> bool:
        try:
            await limiter.hit(1)
        except RateLimited:
            return False
        return True

    results = await asyncio.gather(*(attempt(first if i % 2 else second) for i in range(600)))
    assert sum(results) == 500
    client = aioredis.from_url(TEST_REDIS_URL)
    keys = [key async for key in client.scan_iter(f"{prefix}*")]
    assert await client.get(f"{prefix}rl:1:minute:{int(START.timestamp())}") == b"500"
    await client.delete(*keys)
    await client.aclose()
    await first.close()
    await second.close()


def counted(decision: Decision | None) -> dict[str, int]:
    assert decision is not None
    return dict(zip([w.name for w in decision.windows], decision.counts, strict=True))


async def test_a_replay_of_n_events_counts_ceil_n_over_100_requests_and_n_replayed_events(
    limiter: RateLimiter,
) -> None:
    clock.freeze(START)
    await hits(limiter, 1)  # the replay's own request, counted when it arrived
    assert counted(await limiter.charge_replay(1, 250)) == {"minute": 3, "hour": 3, "day": 3, "replayed-day": 250}
    await hits(limiter, 1)
    assert counted(await limiter.charge_replay(1, 100)) == {"replayed-day": 350}  # one request: its own
    assert await limiter.charge_replay(1, 0) is None  # nothing replayed, nothing more counted
    assert counted(await limiter.hit(1)) == {"minute": 5, "hour": 5, "day": 5}


async def test_a_replay_passing_a_limit_is_refused_and_counts_nothing(limiter: RateLimiter) -> None:
    clock.freeze(START)
    await hits(limiter, 499)
    with pytest.raises(RateLimited) as refused:
        await limiter.charge_replay(1, 250)  # 2 more requests: 501
    assert (refused.value.window, refused.value.retry_after) == ("minute", 60)
    assert counted(await limiter.hit(1)) == {"minute": 500, "hour": 500, "day": 500}
    clock.freeze(START + timedelta(minutes=1))
    await limiter.charge(1, {REPLAYED: 49_900})
    with pytest.raises(RateLimited) as past_the_day:
        await limiter.charge_replay(1, 101)
    assert (past_the_day.value.window, past_the_day.value.retry_after) == ("replayed-day", 14 * 3600 - 60)
    assert counted(await limiter.charge_replay(1, 100)) == {"replayed-day": 50_000}
    assert counted(await limiter.hit(1)) == {"minute": 1, "hour": 501, "day": 501}


# --- holds: what a connection keeps open (docs/api/callbacks-events.md "Stream") -------------


async def test_a_fourth_holder_is_refused_until_one_releases(limiter: RateLimiter) -> None:
    assert [await limiter.hold("streams", 1, f"h{n}", 3, 30) for n in range(4)] == [True, True, True, False]
    await limiter.release("streams", 1, "h0")
    assert await limiter.hold("streams", 1, "h3", 3, 30) is True
    assert await limiter.hold("streams", 1, "h4", 3, 30) is False


async def test_a_holder_holding_already_is_not_counted_twice(limiter: RateLimiter) -> None:
    for _ in range(3):
        assert await limiter.hold("streams", 1, "same", 3, 30) is True
    assert [await limiter.hold("streams", 1, f"h{n}", 3, 30) for n in range(3)] == [True, True, False]


async def test_holds_are_counted_per_connection(limiter: RateLimiter) -> None:
    for n in range(3):
        assert await limiter.hold("streams", 1, f"h{n}", 3, 30) is True
    assert await limiter.hold("streams", 2, "h9", 3, 30) is True


async def test_a_hold_not_renewed_ends_and_a_renewed_one_lasts(limiter: RateLimiter) -> None:
    assert await limiter.hold("streams", 1, "renewed", 2, 0.3)
    assert await limiter.hold("streams", 1, "left", 2, 0.3)
    await asyncio.sleep(0.15)
    await limiter.renew("streams", {1: ["renewed"]}, 30)
    await asyncio.sleep(0.3)
    assert await limiter.hold("streams", 1, "new", 2, 30) is True  # "left" ended
    assert await limiter.hold("streams", 1, "another", 2, 30) is False  # "renewed" still holds


async def test_holds_are_enforced_with_rate_limits_off() -> None:
    limiter = RateLimiter(MemoryBackend(), enabled=False)
    assert [await limiter.hold("streams", 1, f"h{n}", 3, 30) for n in range(4)] == [True, True, True, False]


async def test_two_redis_limiters_share_holds() -> None:
    prefix = f"comptoir-test:{uuid.uuid4().hex}:"
    first = RateLimiter(RedisBackend(TEST_REDIS_URL, timeout=SHARED_COUNTS_TIMEOUT), prefix=prefix)
    second = RateLimiter(RedisBackend(TEST_REDIS_URL, timeout=SHARED_COUNTS_TIMEOUT), prefix=prefix)
    try:
        results = await asyncio.gather(*(
            (first if n % 2 else second).hold("streams", 7, f"h{n}", 3, 30) for n in range(10)
        ))  # fmt: skip
        assert sum(results) == 3
        held = [n for n, ok in enumerate(results) if ok]
        await (first if held[0] % 2 else second).release("streams", 7, f"h{held[0]}")
        assert await second.hold("streams", 7, "late", 3, 30) is True
    finally:
        client = aioredis.from_url(TEST_REDIS_URL)
        keys = [key async for key in client.scan_iter(f"{prefix}*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()
        await first.close()
        await second.close()


async def test_holds_go_on_in_the_process_while_redis_is_unreachable() -> None:
    """An outage never refuses: each process then counts only its own holds."""
    limiter = RateLimiter(RedisBackend("redis://127.0.0.1:1/0", timeout=0.2), prefix="comptoir-test:gone:")
    try:
        assert [await limiter.hold("streams", 1, f"h{n}", 3, 30) for n in range(4)] == [True, True, True, False]
        assert outages.REDIS.down
    finally:
        outages.REDIS.down = False  # the tracker is the process's: no outage for the next test
        await limiter.close()
