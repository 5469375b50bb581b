"""Fixtures shared by the suite.

Every storage test runs on SQLite and on PostgreSQL (docs/architecture.md "Tests"): the
`db_kind` fixture is parametrised on both. PostgreSQL comes from COMPTOIR_TEST_POSTGRES_URL (default
postgresql://postgres@127.0.0.1:5432/test): each run creates its own database there and drops
it at the end, also when interrupted (tests/databases.py); each test starts from empty tables. SQLite tests get a copy of a migrated file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from comptoir.config import Settings
from comptoir.db.engine import Database, create_database
from comptoir.db.migrate import upgrade
from comptoir.kit import clock, tracing
from comptoir.models import Base
from tests import connection_budget, databases
from tests.databases import TEST_POSTGRES_URL

TEST_REDIS_URL = os.environ.get("COMPTOIR_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
SECRET_KEY = "test-secret-key-at-least-32-bytes-long"
# The tests' callback receivers listen on loopback (COMPTOIR_CALLBACK_ALLOWED_NETWORKS).
TEST_ALLOWED_NETWORKS = "127.0.0.0/8,::1/128"
RUN_ID = uuid.uuid4().hex[:10]
# How long a test's requests may wait on the database and Redis before a 503 or local
# counting (docs/operations.md "When a dependency fails"): long enough that a loaded machine
# never looks like an outage. The outage tests set the short bounds they test.
PATIENT_BOUNDS = {
    "database_connect_timeout_seconds": 30.0,
    "database_pool_timeout_seconds": 30.0,
    "database_statement_timeout_seconds": 60.0,
    "redis_timeout_seconds": 30.0,
}
# The pools of every `comptoir` process the tests start (docs/operations.md "Database pool"):
# at most 2 + 2 more when busy + 2 direct + 1 LISTEN = 7 PostgreSQL connections, where the
# defaults allow 31. A request waits for a free one (PATIENT_BOUNDS) rather than fails.
PROCESS_POOLS = {"database_pool_size": 2, "database_max_overflow": 2, "database_direct_pool_size": 2}
# The most PostgreSQL connections a test holds at once (tests/connection_budget.py). A test
# in this process: the `database` fixture's pool (5, and 5 more when busy), its app's direct
# pool (10) and a few of its own. A test marked `e2e`: up to five processes of PROCESS_POOLS
# (35) and the rows it makes beside them (`in_world`'s pool: 2, and 2 more when busy);
# tests/e2e at `-n 2` held 29 at most, both processes together, where one test alone held 82
# with the default pools, and the whole suite at `-n 3` 32. Between its tests a process keeps
# the `database` engine's idle connections (5 at most) and the one that empties the tables
# (`databases.execute_kept`): 6 beyond its shares, within the margin the budget leaves under
# `max_connections`; the whole suite at `-n 3` then held 42 at most (sampled every 0.5 s).
TEST_CONNECTIONS = 25
E2E_CONNECTIONS = 40
# A test marked `alone` (bounds of a second or less) leaves room for one other test in this
# process beside it, never for a test marked `e2e` nor for two (their processes and their
# contention made a set-up statement run past the second); nothing else waits for it to end.
ALONE_CONNECTIONS = connection_budget.BUDGET - TEST_CONNECTIONS
assert ALONE_CONNECTIONS + E2E_CONNECTIONS > connection_budget.BUDGET
assert ALONE_CONNECTIONS + 2 * TEST_CONNECTIONS > connection_budget.BUDGET


def postgres_url(database: str) -> str:
    return make_url(TEST_POSTGRES_URL).set(database=database).render_as_string(hide_password=False)


async def _execute(sql: str, url: str = TEST_POSTGRES_URL) -> None:
    await databases.execute(sql, url)


def new_database_name() -> str:
    """The name of a test database to create: see tests/databases.py."""
    return databases.new_name()


_pristine: list[str] = []  # this process's migrated database that nothing connects to
_pristine_lock = threading.Lock()


def _pristine_template() -> str:
    """The name of this process's pristine database: created and migrated on first use, then
    only ever copied (PostgreSQL copies a database only while no one is connected to it)."""
    with _pristine_lock:
        if not _pristine:
            name = new_database_name()
            asyncio.run(databases.create(name))
            asyncio.run(_migrate(postgres_url(name)))
            _pristine.append(name)
        return _pristine[0]


def create_postgres_database(name: str) -> str:
    """Create a fresh, migrated database of our own (named by `new_database_name`, and
    dropped at the end of the run whatever happens); returns its URL.

    A copy of this process's pristine migrated database (`CREATE DATABASE ... TEMPLATE`,
    ~0.2 s where applying the migrations takes ~4 s), with an installation id key of its
    own, as migration 0019 gives every database it creates."""
    asyncio.run(databases.create(name, template=_pristine_template()))
    url = postgres_url(name)
    asyncio.run(_execute(f"UPDATE installation SET id_key = '{secrets.token_hex(16)}'", url))
    return url


def drop_postgres_database(name: str) -> None:
    asyncio.run(databases.drop(name))


def pytest_configure(config: pytest.Config) -> None:
    databases.install()
    if not hasattr(config, "workerinput"):  # once, in the process that starts the workers
        compile_sources()


def compile_sources() -> None:
    """Write the bytecode of Comptoir's and the client's sources before any process starts.

    The suite starts a few hundred Python processes (servers, workers, CLIs, sandboxes), each
    importing the application; where PYTHONDONTWRITEBYTECODE is set (as on the machines we run it on) no
    import writes the bytecode, so each of them compiled all of it again: about 0.2 s of CPU a
    process (docs/performance.md "The test suite: kept connections, one event loop"). A file
    already compiled is only looked at."""
    import compileall

    root = Path(__file__).resolve().parent.parent
    for source in (root / "src", root / "clients" / "python" / "src"):
        compileall.compile_dir(source, quiet=2)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Databases left by runs killed outright (tests/databases.py) go first."""
    with contextlib.suppress(OSError):  # PostgreSQL is not running: the tests that need it say so
        databases.drop_stale()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Also after Ctrl-C, SIGTERM and -x: this run's databases go."""
    databases.drop_registered()


async def _migrate(url: str) -> None:
    db = create_database(Settings(database_url=url, secret_key=SECRET_KEY), pool_size=1)
    try:
        await upgrade(db)
    finally:
        await db.dispose()


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    name = new_database_name()
    url = create_postgres_database(name)
    yield url
    drop_postgres_database(name)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "comptoir.db"
    asyncio.run(_migrate(f"sqlite:///{path}"))
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def db_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="session")
def _sqlite_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where every SQLite test of this process finds its database: one path, so that one
    engine (and its compiled statements) serves them all (`database`)."""
    return tmp_path_factory.mktemp("sqlite-tests") / "comptoir.db"


@pytest.fixture
def database_url(db_kind: str, request: pytest.FixtureRequest) -> str:
    if db_kind == "sqlite":
        if request.node.get_closest_marker("database_in_tmp_path") is not None:
            path = request.getfixturevalue("tmp_path") / "comptoir.db"
        else:
            path = request.getfixturevalue("_sqlite_path")
        for leftover in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            leftover.unlink(missing_ok=True)  # the last test's, whose connections are closed
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    url = request.getfixturevalue("postgres_template")
    databases.execute_kept(EMPTY_TABLES, url)
    return url


# DELETE, children first: ~1 ms on the small tables of a test, where TRUNCATE takes ~50.
EMPTY_TABLES = "; ".join(
    f'DELETE FROM "{t.name}"' for t in reversed(Base.metadata.sorted_tables) if t.name != "installation"
)  # the installation's id key stays


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key=SECRET_KEY,
        redis_url=None,
        rate_limits="on",
        redis_prefix=f"comptoir-test:{RUN_ID}:",
        callback_allowed_networks=TEST_ALLOWED_NETWORKS,
        **PATIENT_BOUNDS,
    )


# One engine per set of database settings, kept from test to test: SQLAlchemy keeps the
# statements it compiled in its engine, and compiling them again in every test was about a
# sixth of the suite's time. On PostgreSQL its pooled connections are kept too (every test
# runs on the process's one event loop: `asyncio_default_test_loop_scope`): a new connection
# is a new server process, which reads the catalog again for every table it touches. A SQLite
# test's pool is emptied at its end: the next test's file is a new copy at the same path. An
# engine made while traces are on is the test's alone (it is instrumented).
_engines: dict[str, Database] = {}
_DATABASE_SETTINGS = {name for name in Settings.model_fields if name.startswith("database_")}


@pytest.fixture
async def database(settings: Settings) -> AsyncIterator[Database]:
    key, kept = settings.model_dump_json(include=_DATABASE_SETTINGS), not tracing.enabled()
    db = _engines.get(key) if kept else None
    if db is None:
        db = create_database(settings, pool_size=5)
        if kept:
            _engines[key] = db
    await db.load_id_key()  # as every process does before it makes an id (kit.ids)
    yield db
    if not kept or db.is_sqlite:
        await db.dispose()


@pytest.fixture(autouse=True, scope="session")
def _cheap_password_hashing() -> Iterator[None]:
    """argon2id with its smallest cost: production parameters take ~0.1 s per hash."""
    from argon2 import PasswordHasher

    from comptoir.kit import crypto

    default = crypto._hasher
    crypto._hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    yield
    crypto._hasher = default


@pytest.fixture(autouse=True)
def _connection_share(request: pytest.FixtureRequest) -> Iterator[None]:
    """Under pytest-xdist, a test runs once the tests beside it leave room for its PostgreSQL
    connections (tests/connection_budget.py): `E2E_CONNECTIONS` for a test marked `e2e`,
    `ALONE_CONNECTIONS` for one marked `alone`, `TEST_CONNECTIONS` for any other."""
    workerinput = getattr(request.config, "workerinput", None)
    if workerinput is None:  # one process: nothing runs beside
        yield
        return
    path = Path(tempfile.gettempdir()) / f"comptoir-tests-{workerinput['testrunuid']}.shares"
    if request.node.get_closest_marker("alone") is not None:
        wanted = ALONE_CONNECTIONS
    elif request.node.get_closest_marker("e2e") is not None:
        wanted = E2E_CONNECTIONS
    else:
        wanted = TEST_CONNECTIONS
    with connection_budget.share(path, wanted):
        yield


@pytest.fixture(autouse=True)
def _signals_left_as_found() -> Iterator[None]:
    """A test leaves the process's handling of Ctrl-C and SIGTERM as it found it: a process
    the suite starts inherits an ignored signal (tests/storage/test_test_databases.py), and
    the suite itself would no longer stop on Ctrl-C."""
    found = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    changed = [sig.name for sig, handler in found.items() if signal.getsignal(sig) is not handler]
    for sig in found:
        with contextlib.suppress(ValueError):  # not the main thread
            signal.signal(sig, found[sig])
    assert not changed, f"the test changed the handling of {', '.join(changed)}"


@pytest.fixture(autouse=True)
def _reset_clock() -> Iterator[None]:
    clock.reset()
    yield
    clock.reset()
