"""In-process counters: one process's view only (use Redis for several processes)."""

from __future__ import annotations

import time


class MemoryBackend:
    def __init__(self) -> None:
        self._holders: dict[str, dict[str, float]] = {}  # key: {holder: when its hold ends}
        self._counts: dict[str, int] = {}
        self._expiry: dict[str, float] = {}
        self._next_purge = time.monotonic() + 60

    async def take(
        self, keys: list[str], limits: list[int], ttls: list[int], amounts: list[int] | None = None
    ) -> tuple[bool, list[int]]:
        # No await between reading and writing: atomic within the event loop.
        counts = self._counts
        amounts = amounts or [1] * len(keys)
        current = [counts.get(key, 0) for key in keys]
        if any(c + n > limit for c, n, limit in zip(current, amounts, limits, strict=True)):
            return False, current
        now = time.monotonic()
        for key, ttl in zip(keys, ttls, strict=True):
            if key not in counts:
                self._expiry[key] = now + ttl
        for i, key in enumerate(keys):
            current[i] += amounts[i]
            counts[key] = current[i]
        if now >= self._next_purge:
            self._purge(now)
        return True, current

    async def peek(self, keys: list[str]) -> list[int]:
        return [self._counts.get(key, 0) for key in keys]

    def _purge(self, now: float) -> None:
        for key in [k for k, at in self._expiry.items() if at <= now]:
            self._counts.pop(key, None)
            del self._expiry[key]
        self._next_purge = now + 60

    async def hold(self, key: str, holder: str, limit: int, ttl: float) -> bool:
        # No await: atomic within the event loop.
        now = time.monotonic()
        holders = {h: end for h, end in self._holders.get(key, {}).items() if end > now}
        if holder not in holders and len(holders) >= limit:
            self._holders[key] = holders
            return False
        holders[holder] = now + ttl
        self._holders[key] = holders
        return True

    async def renew(self, held: dict[str, list[str]], ttl: float) -> None:
        end = time.monotonic() + ttl
        for key, holders in held.items():
            mine = self._holders.setdefault(key, {})
            for holder in holders:
                mine[holder] = end

    async def release(self, key: str, holder: str) -> None:
        holders = self._holders.get(key)
        if holders is not None:
            holders.pop(holder, None)
            if not holders:
                del self._holders[key]

    async def close(self) -> None:
        return None
