"""Counters in Redis, shared by every process: one atomic Lua script per request."""

from __future__ import annotations

import redis.asyncio as aioredis

# KEYS: the window counters; ARGV: their limits, their time-to-live in seconds, then the
# amounts to add to them.
_TAKE = """
local n = #KEYS
local counts = {}
local full = false
for i = 1, n do
  counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  if counts[i] + tonumber(ARGV[2 * n + i]) > tonumber(ARGV[i]) then full = true end
end
if full then
  return {0, unpack(counts)}
end
for i = 1, n do
  local before = counts[i]
  counts[i] = redis.call('INCRBY', KEYS[i], ARGV[2 * n + i])
  if before == 0 then redis.call('EXPIRE', KEYS[i], ARGV[n + i]) end
end
return {1, unpack(counts)}
"""


class RedisBackend:
    def __init__(self, url: str, *, max_connections: int = 32) -> None:
        # A blocking pool: under a burst, requests wait a moment for a connection instead of
        # failing with "Too many connections" (the default pool raises at 100).
        pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=10)
        self.client = aioredis.Redis.from_pool(pool)  # owns the pool: aclose() closes it
        self._take = self.client.register_script(_TAKE)

    async def take(
        self, keys: list[str], limits: list[int], ttls: list[int], amounts: list[int] | None = None
    ) -> tuple[bool, list[int]]:
        result = await self._take(keys=keys, args=[*limits, *ttls, *(amounts or [1] * len(keys))])
        return bool(result[0]), [int(c) for c in result[1:]]

    async def peek(self, keys: list[str]) -> list[int]:
        return [int(c or 0) for c in await self.client.mget(keys)]

    async def close(self) -> None:
        await self.client.aclose()
