"""Counters in Redis, shared by every process: one atomic Lua script per request.

docs/operations.md "When a dependency fails": an outage of Redis never refuses or fails a
request. A command that gets no answer within `timeout` seconds, or cannot reach Redis, is
answered by this process's own counters (`MemoryBackend`) instead, and so is every command
for the next RETRY_SECONDS; then one command tries Redis again (the others keep counting
locally meanwhile) and, once Redis answers, the counters are Redis's again. The outage is
logged once, when it starts, and once when it ends (`kit.outages`), and shows in
`comptoir_dependency_unavailable{dependency="redis"}`. What was counted locally stays local:
for the length of an outage each process counts only its own requests.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeout

from comptoir.kit.outages import REDIS
from comptoir.ratelimit.memory import MemoryBackend

T = TypeVar("T")

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

# KEYS[1]: a sorted set of holders, each scored by when its hold ends (Redis's clock, ms);
# ARGV: the holder, the limit, the hold's length in ms. Ended holds go first.
_HOLD = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""
# KEYS: sorted sets of holders; ARGV: the hold's length in ms, then for each key the number
# of its holders followed by them. Only holds still present are renewed.
_RENEW = """
local now = redis.call('TIME')
local ending = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[1])
local at = 2
for i = 1, #KEYS do
  local n = tonumber(ARGV[at])
  for j = 1, n do
    redis.call('ZADD', KEYS[i], 'XX', ending, ARGV[at + j])
  end
  redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1]))
  at = at + n + 1
end
return 1
"""

POOL_WAIT_SECONDS = 10.0  # longest wait for one of the pool's connections
RETRY_SECONDS = 2.0  # after a failure, how long the local counters answer before Redis is tried again
_UNREACHABLE = (RedisConnectionError, RedisTimeout, OSError, TimeoutError)


class RedisBackend:
    def __init__(self, url: str, *, timeout: float = 1.0, max_connections: int = 32) -> None:
        # A blocking pool: under a burst, requests wait a moment for a connection instead of
        # failing with "Too many connections" (the default pool raises at 100). That wait is
        # this process's own queue, not Redis's slowness: it has a bound of its own.
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=max(POOL_WAIT_SECONDS, timeout),
            socket_connect_timeout=timeout,
            socket_timeout=timeout,
        )
        self.client = aioredis.Redis.from_pool(pool)  # owns the pool: aclose() closes it
        self._take = self.client.register_script(_TAKE)
        self._hold = self.client.register_script(_HOLD)
        self._renew = self.client.register_script(_RENEW)
        self.local = MemoryBackend()  # while Redis is unavailable
        self._retry_at = 0.0  # before this (time.monotonic()), Redis is not asked
        self._trying = False  # one command tries Redis again at a time

    async def take(
        self, keys: list[str], limits: list[int], ttls: list[int], amounts: list[int] | None = None
    ) -> tuple[bool, list[int]]:
        async def in_redis() -> tuple[bool, list[int]]:
            result = await self._take(keys=keys, args=[*limits, *ttls, *(amounts or [1] * len(keys))])
            return bool(result[0]), [int(c) for c in result[1:]]

        return await self._either(in_redis, lambda: self.local.take(keys, limits, ttls, amounts))

    async def peek(self, keys: list[str]) -> list[int]:
        async def in_redis() -> list[int]:
            return [int(c or 0) for c in await self.client.mget(keys)]

        return await self._either(in_redis, lambda: self.local.peek(keys))

    async def hold(self, key: str, holder: str, limit: int, ttl: float) -> bool:
        async def in_redis() -> bool:
            return bool(await self._hold(keys=[key], args=[holder, limit, round(ttl * 1000)]))

        return await self._either(in_redis, lambda: self.local.hold(key, holder, limit, ttl))

    async def renew(self, held: dict[str, list[str]], ttl: float) -> None:
        if not held:
            return

        async def in_redis() -> None:
            args: list[str | int] = [round(ttl * 1000)]
            for holders in held.values():
                args += [len(holders), *holders]
            await self._renew(keys=list(held), args=args)

        await self.local.renew(held, ttl)  # what an outage would answer with, kept up to date
        await self._either(in_redis, self._nothing)

    async def release(self, key: str, holder: str) -> None:
        async def in_redis() -> None:
            await self.client.zrem(key, holder)

        await self.local.release(key, holder)
        await self._either(in_redis, self._nothing)

    @staticmethod
    async def _nothing() -> None:
        return None

    async def _either(self, in_redis: Callable[[], Awaitable[T]], locally: Callable[[], Awaitable[T]]) -> T:
        """Redis's answer, or the local counters' while Redis is unavailable."""
        if REDIS.down:
            if self._trying or time.monotonic() < self._retry_at:
                return await locally()
            self._trying = True
        try:
            answer = await in_redis()
        except _UNREACHABLE as error:
            REDIS.failed(error)
            self._retry_at = time.monotonic() + RETRY_SECONDS
            return await locally()
        finally:
            self._trying = False
        REDIS.ok()
        return answer

    async def close(self) -> None:
        await self.client.aclose()
