from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from comptoir.errors import RateLimited
from comptoir.kit import clock, metrics


@dataclass(frozen=True, slots=True)
class Window:
    name: str  # policy name shown in the RateLimit headers
    seconds: int
    limit: int


MINUTE, HOUR, DAY = 60, 3600, 86400
GENERAL = "general"
HEAVY = "heavy"
IMAGE = "image"
REPLAYED = "replayed"  # events queued again by replays, not requests

_GENERAL_WINDOWS = (Window("minute", MINUTE, 500), Window("hour", HOUR, 2500), Window("day", DAY, 10000))
POLICIES: dict[str, tuple[Window, ...]] = {
    GENERAL: _GENERAL_WINDOWS,
    HEAVY: (*_GENERAL_WINDOWS, Window("heavy-minute", MINUTE, 10)),
    IMAGE: (Window("image-minute", MINUTE, 3000), Window("image-day", DAY, 100000)),
    REPLAYED: (Window("replayed-day", DAY, 50_000),),
}
# docs/api/conventions.md "Rate limits": a replay of n events counts as ceil(n / 100) requests
EVENTS_PER_REQUEST = 100


class Backend(Protocol):
    async def take(
        self, keys: list[str], limits: list[int], ttls: list[int], amounts: list[int] | None = None
    ) -> tuple[bool, list[int]]:
        """Atomically: when every counter stays within its limit once increased by its amount
        (1 each without `amounts`), increase them all and return (True, new counts);
        otherwise change nothing and return (False, current counts)."""
        ...

    async def peek(self, keys: list[str]) -> list[int]:
        """The current counts, unchanged."""
        ...

    async def hold(self, key: str, holder: str, limit: int, ttl: float) -> bool:
        """Atomically: unless `limit` holders already hold `key`, let `holder` hold it for
        `ttl` seconds (unless renewed or released) and return True; otherwise False. A
        holder holding already is renewed."""
        ...

    async def renew(self, held: dict[str, list[str]], ttl: float) -> None:
        """The holds of these holders, per key, last `ttl` seconds from now."""
        ...

    async def release(self, key: str, holder: str) -> None: ...

    async def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Decision:
    windows: tuple[Window, ...]
    counts: tuple[int, ...]
    resets: tuple[int, ...]  # seconds until each window ends

    def headers(self) -> list[tuple[bytes, bytes]]:
        """`RateLimit-Policy` and `RateLimit` of the IETF httpapi rate-limit headers draft."""
        policy = ", ".join(f'"{w.name}";q={w.limit};w={w.seconds}' for w in self.windows)
        state = ", ".join(
            f'"{w.name}";r={max(w.limit - c, 0)};t={r}'
            for w, c, r in zip(self.windows, self.counts, self.resets, strict=True)
        )
        return [(b"ratelimit-policy", policy.encode()), (b"ratelimit", state.encode())]


class RateLimiter:
    def __init__(self, backend: Backend, *, enabled: bool = True, prefix: str = "comptoir:") -> None:
        self.backend = backend
        self.enabled = enabled
        self.prefix = prefix

    async def hit(self, connection_id: int, kind: str = GENERAL) -> Decision | None:
        """Count one request of `kind` for the connection, or raise RateLimited (spec 8.2)."""
        return await self.charge(connection_id, {kind: 1})

    async def charge_replay(self, connection_id: int, events: int) -> Decision | None:
        """What a replay of `events` events costs the connection beyond the request that asked
        for it (counted as any, when it arrived): ceil(events / 100) requests in all, and
        `events` toward the replayed events of the day; or RateLimited, counting nothing
        (docs/api/conventions.md "Rate limits")."""
        requests = max(1, math.ceil(events / EVENTS_PER_REQUEST))
        return await self.charge(connection_id, {GENERAL: requests - 1, REPLAYED: events})

    async def charge(self, connection_id: int, costs: dict[str, int]) -> Decision | None:
        """Count `cost` toward every window of each `kind` (kinds with windows of their own)
        at once, all or nothing: RateLimited when a window would pass its limit."""
        if not self.enabled:
            return None
        now = clock.now().timestamp()
        windows: list[Window] = []
        kinds, keys, limits, ttls, resets, amounts = [], [], [], [], [], []
        for kind, cost in costs.items():
            if cost <= 0:
                continue
            for window in POLICIES[kind]:
                start = int(now // window.seconds) * window.seconds  # aligned on UTC (epoch)
                windows.append(window)
                kinds.append(kind)
                keys.append(f"{self.prefix}rl:{connection_id}:{window.name}:{start}")
                limits.append(window.limit)
                ttls.append(window.seconds + 60)
                resets.append(max(1, math.ceil(start + window.seconds - now)))
                amounts.append(cost)
        if not keys:
            return None
        allowed, counts = await self.backend.take(keys, limits, ttls, amounts)
        decision = Decision(tuple(windows), tuple(counts), tuple(resets))
        if not allowed:
            full = [i for i, window in enumerate(windows) if counts[i] + amounts[i] > window.limit]
            # Refused until every full window has ended: wait for the latest of them.
            worst = max(full, key=lambda i: resets[i])
            metrics.RATE_LIMITED.labels(kinds[worst]).inc()  # docs/operations.md "Metrics"
            raise RateLimitedWithState(resets[worst], windows[worst].name, decision)
        return decision

    # --- things held open (docs/api/callbacks-events.md "Stream": open streams) -------------

    def held_key(self, what: str, connection_id: int) -> str:
        return f"{self.prefix}held:{what}:{connection_id}"

    async def hold(self, what: str, connection_id: int, holder: str, limit: int, ttl: float) -> bool:
        """Whether `holder` may hold one of the connection's `limit` `what`s, across every
        process sharing the backend; held for `ttl` seconds unless renewed (`renew`, sooner
        than that: a process that ends without releasing frees its holds by then). Enforced
        whether rate limits are on or off: it bounds what a connection holds, not its pace."""
        return await self.backend.hold(self.held_key(what, connection_id), holder, limit, ttl)

    async def renew(self, what: str, holders: dict[int, list[str]], ttl: float) -> None:
        """Renew the holds of `holders`, per connection id."""
        await self.backend.renew({self.held_key(what, c): h for c, h in holders.items() if h}, ttl)

    async def release(self, what: str, connection_id: int, holder: str) -> None:
        await self.backend.release(self.held_key(what, connection_id), holder)

    async def close(self) -> None:
        await self.backend.close()


class RateLimitedWithState(RateLimited):
    def __init__(self, retry_after: int, window: str, decision: Decision) -> None:
        super().__init__(retry_after, window)
        self.decision = decision
