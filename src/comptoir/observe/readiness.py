"""Readiness (docs/operations.md "Health and readiness"): whether this process can serve.

Each check answers within `TIMEOUT` seconds, whatever the network does: a closed port fails
at once, a silent one when the timeout ends. A failed check is named, never explained: the
answer holds no address, user name or driver message (those go to the log).
"""

from __future__ import annotations

import asyncio
import functools

import structlog

from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.db.migrate import alembic_head, database_revision

log = structlog.get_logger("comptoir.ready")

TIMEOUT = 1.5  # seconds per check; the checks run side by side
OK = "ok"
FAILED = "unavailable"
BEHIND = "not_current"


@functools.cache
def _head() -> str:
    return alembic_head()  # the package's newest revision: read from its files once


async def _database(db: Database, head: str) -> dict[str, str]:
    try:
        async with asyncio.timeout(TIMEOUT):
            revision = await database_revision(db)
    except Exception as exc:  # any failure of the driver or the network: not ready
        log.warning("ready_check_failed", check="database", error=type(exc).__name__)
        return {"database": FAILED, "migrations": FAILED}
    return {"database": OK, "migrations": OK if revision == head else BEHIND}


async def _redis(url: str) -> dict[str, str]:
    from redis.asyncio import Redis

    client = Redis.from_url(url, socket_connect_timeout=TIMEOUT, socket_timeout=TIMEOUT)
    try:
        async with asyncio.timeout(TIMEOUT):
            await client.ping()
    except Exception as exc:
        log.warning("ready_check_failed", check="redis", error=type(exc).__name__)
        return {"redis": FAILED}
    finally:
        await client.aclose()
    return {"redis": OK}


async def checks(settings: Settings, db: Database) -> dict[str, str]:
    """Each check's verdict: `database`, `migrations` and, when COMPTOIR_REDIS_URL is set,
    `redis`; "ok" when it passed."""
    probes = [_database(db, _head())]
    if settings.redis_url:
        probes.append(_redis(settings.redis_url))
    verdicts: dict[str, str] = {}
    for result in await asyncio.gather(*probes):
        verdicts.update(result)
    return verdicts
