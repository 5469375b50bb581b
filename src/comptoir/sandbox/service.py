"""The sandbox's life (docs/sandbox.md): a database of its own, made fresh and marked; the
seed loaded into it; the seeded state kept as a snapshot; a reset that puts it back.

A database holding data the sandbox did not make is refused, whatever it holds: the sandbox
wipes its database at every start and every reset.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.catalogs.read_cache import DATA_CACHE
from comptoir.config import Settings
from comptoir.db import ids as id_blocks
from comptoir.db.connection_cache import ConnectionCache
from comptoir.db.engine import Database, create_database
from comptoir.db.failures import is_deadlock
from comptoir.db.migrate import upgrade
from comptoir.db.server_key import load_data_key
from comptoir.errors import FieldError, Unprocessable
from comptoir.jobs.timed import Retention, run_once, timed_jobs
from comptoir.kit import clock
from comptoir.kit.times import parse_datetime
from comptoir.kit.wire import WireError
from comptoir.sandbox import repository
from comptoir.sandbox.deliveries import DeliveryLog
from comptoir.sandbox.repository import Snapshot
from comptoir.sandbox.schema import make_empty
from comptoir.sandbox.seed import Seed, load

# Public on purpose: every sandbox derives its tokens and secrets from it, so that they are the
# same at every start (docs/sandbox.md "Ids, tokens and secrets"). A sandbox holds test data only.
SECRET_KEY = "comptoir-sandbox-key-public-never-for-real-data"  # noqa: S105 - public on purpose
# where a sandbox's callbacks may go unless COMPTOIR_CALLBACK_ALLOWED_NETWORKS says otherwise:
# an integrator's receiver runs on the same machine
ALLOWED_NETWORKS = "127.0.0.0/8,::1/128"
RESET_ATTEMPTS = 3  # a reset rolled back to break a deadlock is run again, up to this many times in all
# docs/sandbox.md "The clock": how far past the real time the sandbox's clock may go
MAX_AHEAD = timedelta(days=3653)  # 10 years


class SandboxRefused(Exception):
    """The sandbox may not use the database it was given."""


@dataclass
class Sandbox:
    settings: Settings
    db: Database
    seed: Seed
    snapshot: Snapshot
    answer: dict[str, Any]  # what the seed made, by kind and key
    temporary: Path | None  # the directory of a temporary SQLite database, removed at exit
    deliveries: DeliveryLog = field(default_factory=lambda: DeliveryLog({}))
    worker: DeliveryWorker | None = None  # the app's, once it runs (poked when the clock moves)

    async def close(self) -> None:
        await self.db.dispose()
        if self.temporary is not None:
            shutil.rmtree(self.temporary, ignore_errors=True)


def sandbox_settings(settings: Settings, database_url: str) -> Settings:
    """The process's settings, on the sandbox's database and with its server key."""
    update: dict[str, Any] = {"database_url": database_url, "secret_key": SECRET_KEY}
    if "callback_allowed_networks" not in settings.model_fields_set:
        update["callback_allowed_networks"] = ALLOWED_NETWORKS
    return settings.model_copy(update=update)


async def fresh_database(url: str | None) -> tuple[str, Path | None]:
    """The URL of an empty database the sandbox marked as its own, and the temporary
    directory holding it when no URL was given. Raises SandboxRefused."""
    if url is None:
        directory = Path(tempfile.mkdtemp(prefix="comptoir-sandbox-"))
        _fresh_sqlite(directory / "sandbox.db")
        return f"sqlite:///{directory / 'sandbox.db'}", directory
    try:
        parsed = make_url(url)
    except Exception:
        raise SandboxRefused(f"--database: {url!r} is not a database URL") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise SandboxRefused(
                "--database: give a SQLite file (sqlite:///path), or no --database for a temporary one"
            )
        _fresh_sqlite(Path(parsed.database))
        return url, None
    if backend in ("postgresql", "postgres"):
        import asyncpg

        try:
            await _fresh_postgres(url)
        except (OSError, asyncpg.PostgresError) as exc:  # not reached, or the user may not
            problem = " ".join(str(exc).split())
            raise SandboxRefused(f"--database: {parsed.render_as_string(hide_password=True)}: {problem}") from None
        return url, None
    raise SandboxRefused(f"--database: {parsed.drivername!r} is neither sqlite nor postgresql")


def _refusal(shown: str) -> SandboxRefused:
    return SandboxRefused(
        f"--database: {shown} holds data the sandbox did not make; the sandbox wipes its database:"
        " give a new or empty one"
    )


def _fresh_sqlite(path: Path) -> None:
    if path.exists():
        connection = sqlite3.connect(path)
        try:
            foreign = repository.sqlite_has_tables(connection) and not repository.sqlite_marked(connection)
        except sqlite3.DatabaseError:  # not a SQLite database at all
            foreign = True
        finally:
            connection.close()
        if foreign:
            raise _refusal(str(path))
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    try:
        make_empty(connection)  # the migrated schema, at once (`start` upgrades it if behind)
        repository.sqlite_mark(connection)
        connection.commit()
    finally:
        connection.close()


async def _fresh_postgres(url: str) -> None:
    import asyncpg

    parsed = make_url(url)
    name = parsed.database
    if not name:
        raise SandboxRefused("--database: the PostgreSQL URL names no database")
    plain = parsed.set(drivername="postgresql")
    server = await asyncpg.connect(plain.set(database="postgres").render_as_string(hide_password=False))
    try:
        exists, marked = await repository.postgres_state(server, name)
        quoted = '"' + name.replace('"', '""') + '"'
        if not exists:
            await server.execute(f"CREATE DATABASE {quoted}")
            await server.execute(f"COMMENT ON DATABASE {quoted} IS '{repository.POSTGRES_MARK}'")
            return
    finally:
        await server.close()
    own = await asyncpg.connect(plain.render_as_string(hide_password=False))
    try:
        if marked:  # made by an earlier sandbox: emptied
            await own.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
            return
        has_tables = await own.fetchval(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        )
        if has_tables:
            raise _refusal(plain.render_as_string(hide_password=True))
        await own.execute(f"COMMENT ON DATABASE {quoted} IS '{repository.POSTGRES_MARK}'")
    finally:
        await own.close()


async def start(settings: Settings, seed: Seed, database_url: str | None) -> tuple[Sandbox, bytes]:
    """A fresh database loaded with `seed` and its snapshot taken; and the data key. Raises
    SandboxRefused, SeedError (the temporary database is gone then)."""
    url, temporary = await fresh_database(database_url)
    settings = sandbox_settings(settings, url)
    db = create_database(settings, pool_size=5)
    try:
        await upgrade(db)
        async with db.transaction() as session:
            await repository.use_fixed_id_key(session)
        await db.load_id_key()
        key = await load_data_key(db, settings.server_key())
        answer, connection_keys = await load(db, settings, key, seed)
        async with db.transaction(write=False) as session:
            snapshot = await repository.capture(session)
    except BaseException:
        await db.dispose()
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        raise
    return Sandbox(settings, db, seed, snapshot, answer, temporary, DeliveryLog(connection_keys)), key


async def reset(sandbox: Sandbox, cache: ConnectionCache) -> dict[str, Any]:
    """Put the seeded state back, rows, ids and sequences; forget what this process
    remembered of the state it replaces. The answer is the seed's, as at the start."""
    for attempt in range(1, RESET_ATTEMPTS + 1):
        try:
            async with sandbox.db.transaction() as session:
                await repository.restore(session, sandbox.snapshot)
            break
        except DBAPIError as error:
            # Its deletes meet the rows a worker or a request is writing in another order;
            # PostgreSQL rolls one of the two back, and a reset is run again
            # (docs/sandbox.md "Reset").
            if attempt == RESET_ATTEMPTS or not is_deadlock(error):
                raise
    cache.forget()
    DATA_CACHE.clear()
    if not sandbox.db.is_sqlite:
        id_blocks.blocks_of(sandbox.settings.database_url).forget()
    sandbox.deliveries.clear()
    clock.reset()
    return sandbox.answer


# --- the clock (docs/sandbox.md "The clock") ------------------------------------------------


def clock_answer() -> dict[str, Any]:
    now = clock.now()
    return {"now": now.isoformat(timespec="seconds").replace("+00:00", "Z"), "real": not clock.moved()}


def clock_target(advance_seconds: Any, now: Any) -> datetime:
    """Where the clock goes for POST /sandbox/clock's body: `advance_seconds` (a whole number,
    0 or more) later, or to `now` (an ISO 8601 time, UTC without offset), never before the
    sandbox's current time nor more than MAX_AHEAD past the real time. Raises Unprocessable."""
    if advance_seconds is None and now is None:
        raise Unprocessable(FieldError("advance_seconds", "is required (or give now)"))
    if advance_seconds is not None and now is not None:
        raise Unprocessable(FieldError("now", "give advance_seconds or now, not both"))
    current = clock.now()
    latest = clock.real_now() + MAX_AHEAD
    if advance_seconds is not None:
        seconds = _whole(advance_seconds)
        if seconds is None or seconds < 0:
            raise Unprocessable(FieldError("advance_seconds", "must be a whole number of seconds, 0 or more"))
        if seconds > (latest - current).total_seconds():
            raise Unprocessable(FieldError("advance_seconds", "takes the clock more than 10 years past the real time"))
        return current + timedelta(seconds=seconds)
    try:
        target = parse_datetime(now)
    except WireError as exc:
        raise Unprocessable(FieldError("now", str(exc))) from None
    target = target.replace(tzinfo=UTC) if target.tzinfo is None else target.astimezone(UTC)
    if target < current.replace(microsecond=0):
        raise Unprocessable(FieldError("now", f"is before the sandbox's current time ({clock_answer()['now']})"))
    if target > latest:
        raise Unprocessable(FieldError("now", "is more than 10 years past the real time"))
    return max(target, current)


def _whole(value: Any) -> int | None:
    """A JSON number without a fraction as an int (a body's big numbers are read as Decimal)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return int(value)
    return None


async def move_clock(sandbox: Sandbox, advance_seconds: Any, now: Any) -> dict[str, Any]:
    """Move the process's clock forward, then run the timed jobs at once (a location whose
    `resume_at` has passed resumes, old events are purged) and wake the delivery worker (a
    resend now due goes out), rather than at their next turn. The answer: the clock's time."""
    ahead = clock_target(advance_seconds, now) - clock.now()
    if ahead > timedelta(0):  # `advance_seconds: 0` reads the time and moves nothing
        clock.travel(ahead)
    await run_once(sandbox.db, timed_jobs(Retention.of(sandbox.settings)))
    if sandbox.worker is not None:
        sandbox.worker.poke()
    return clock_answer()
