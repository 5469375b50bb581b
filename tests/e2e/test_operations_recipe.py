"""docs/operations.md "Production on PostgreSQL and Redis" runs as written: the blocks marked
`<!-- recipe: setup -->`, then those marked `<!-- recipe: backup -->`, in order, in bash, from
a fresh clone of this repository, on the local PostgreSQL and Redis. Only the first block (the
names, `<!-- recipe: settings -->`) is the test's own: a role, databases, directories, a port
and a Redis prefix of its own, all removed at the end. Then the servers answer, a worker
delivers a callback, and the dump restores with the data."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from sqlalchemy.engine import make_url

from comptoir.config import Settings
from comptoir.db.engine import create_database
from tests.conftest import TEST_POSTGRES_URL, TEST_REDIS_URL, _execute
from tests.e2e.conftest import LOOPBACK, free_port
from tests.factories import World
from tests.receiver import Receiver, running_receiver
from tests.waiting import PATIENCE, wait_until

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "operations.md"
BLOCK = re.compile(r"^<!-- recipe: (\w+) -->\n```sh\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def recipe_blocks(kind: str) -> list[str]:
    page = PAGE.read_text()
    section = page[page.index("## Production on PostgreSQL and Redis") :]
    section = section[: section.index("\n## ")]
    return [body for found, body in BLOCK.findall(section) if found == kind]


def test_the_page_marks_one_settings_block_then_setup_and_backup_blocks() -> None:
    assert len(recipe_blocks("settings")) == 1
    assert len(recipe_blocks("setup")) == 6
    assert len(recipe_blocks("backup")) == 2


@pytest.fixture
def names(tmp_path: Path) -> Iterator[dict[str, str]]:
    suffix = uuid.uuid4().hex[:10]
    admin = make_url(TEST_POSTGRES_URL)
    names = {
        "COMPTOIR_REPO": str(ROOT),
        "COMPTOIR_VERSION": subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip(),
        "COMPTOIR_ROOT": str(tmp_path / "opt"),
        "COMPTOIR_ETC": str(tmp_path / "etc"),
        "LOG_DIR": str(tmp_path / "log"),
        "BACKUP_DIR": str(tmp_path / "backups"),
        "DB_HOST": admin.host or "127.0.0.1",
        "DB_NAME": f"recipe_{suffix}",
        "DB_ROLE": f"recipe_{suffix}",
        "RESTORE_DB": f"recipe_{suffix}_restored",
        "REDIS_URL": TEST_REDIS_URL,
        "REDIS_PREFIX": f"comptoir-recipe:{suffix}:",
        "ADMIN_PSQL": shlex.join(
            [
                *("psql", "-h", admin.host or "127.0.0.1", "-p", str(admin.port or 5432)),
                *("-U", admin.username or "postgres", "-d", admin.database or "postgres"),
            ]
        ),
        "PORT": str(free_port()),
        "SERVERS": "2",
        "DELIVERY_WORKERS": "2",
    }
    yield names
    for database in (names["RESTORE_DB"], names["DB_NAME"]):
        asyncio.run(_execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
    asyncio.run(_execute(f'DROP ROLE IF EXISTS "{names["DB_ROLE"]}"'))
    client = redis.Redis.from_url(TEST_REDIS_URL)
    for key in client.scan_iter(match=f"{names['REDIS_PREFIX']}*"):
        client.delete(key)
    client.close()


def run_recipe(kind: str, names: dict[str, str], tmp_path: Path) -> subprocess.Popen[bytes]:
    settings = "".join(f"{name}={shlex.quote(value)}\n" for name, value in names.items())
    script = "set -euo pipefail\n" + settings + "".join(recipe_blocks(kind))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPTOIR_", "VIRTUAL_ENV", "PG"))}
    # uv installs for the interpreter running the tests, whose packages its cache holds
    env["UV_PYTHON"] = sys.executable
    # the test's callback receiver listens on loopback, which production refuses
    env |= LOOPBACK
    with (tmp_path / f"recipe-{kind}.log").open("ab") as log:
        # a session of its own: the background processes the recipe starts stay in its group
        return subprocess.Popen(
            ["bash", "-c", script], cwd=tmp_path, env=env, stdout=log, stderr=log, start_new_session=True
        )


def finish(process: subprocess.Popen[bytes], kind: str, tmp_path: Path, timeout: float) -> None:
    code = process.wait(timeout=timeout)
    assert code == 0, (tmp_path / f"recipe-{kind}.log").read_text()


def read_environment_file(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if line and not line.startswith("#"))


def subscribe(environment: dict[str, str], receiver: Receiver) -> str:
    """A location, a writer token, and a listener's callback on location updates."""

    async def build() -> str:
        settings = Settings(
            database_url=environment["COMPTOIR_DATABASE_URL"], secret_key=environment["COMPTOIR_SECRET_KEY"]
        )
        db = create_database(settings, pool_size=1)
        world = World(db, settings.server_key())
        try:
            location = await world.location(name="Recipe kitchen")
            writer = await world.token("location[orders.write]", location=location, client=await world.client())
            listener = await world.token("location[orders.read]", location=location, client=await world.client())
            await world.subscribe(listener, receiver.url("/hook"), {"location": ["update"]})
            return writer
        finally:
            await db.dispose()

    return asyncio.run(build())


def test_the_production_recipe_runs_serves_delivers_and_restores(names: dict[str, str], tmp_path: Path) -> None:
    setup = run_recipe("setup", names, tmp_path)
    try:
        finish(setup, "setup", tmp_path, timeout=240)
        etc = Path(names["COMPTOIR_ETC"])
        assert (etc / "secret-key").stat().st_mode & 0o777 == 0o600
        assert (etc / "comptoir.env").stat().st_mode & 0o777 == 0o600
        environment = read_environment_file(etc / "comptoir.env")
        assert environment["COMPTOIR_DATABASE_URL"].startswith(f"postgresql://{names['DB_ROLE']}:")
        assert environment["COMPTOIR_SECRET_KEY"] == (etc / "secret-key").read_text().strip()

        base_url = f"http://127.0.0.1:{names['PORT']}"
        assert httpx.get(f"{base_url}/v1/health", timeout=PATIENCE).json() == {"status": "ok"}
        with running_receiver() as receiver:
            writer = subscribe(environment, receiver)
            # the servers run --no-worker: what arrives comes from a `comptoir worker`
            patched = httpx.patch(
                f"{base_url}/v1/location", json={"preparation_time": 25}, headers={"X-Access-Token": writer}
            )
            assert patched.status_code == 200, patched.text
            wait_until(lambda: len(receiver.received) == 1, "the delivery")
            assert receiver.received[0].path == "/hook"
        # the servers count their rate limits in the Redis of the environment file
        client = redis.Redis.from_url(TEST_REDIS_URL)
        try:
            assert list(client.scan_iter(match=f"{names['REDIS_PREFIX']}*")) != []
        finally:
            client.close()
        assert "callback_worker_started" not in (Path(names["LOG_DIR"]) / "serve.log").read_text()

        backup = run_recipe("backup", names, tmp_path)
        finish(backup, "backup", tmp_path, timeout=120)
        [dump] = list(Path(names["BACKUP_DIR"]).glob("comptoir-*.dump"))
        assert dump.stat().st_size > 0
        restored = make_url(environment["COMPTOIR_DATABASE_URL"]).set(database=names["RESTORE_DB"])
        check = subprocess.run(
            [
                *("psql", restored.render_as_string(hide_password=False), "-tAc"),
                "SELECT preparation_time FROM locations WHERE name = 'Recipe kitchen'",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        assert check.stdout == "25\n"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(setup.pid, signal.SIGTERM)
        stopped = subprocess.run(["pgrep", "-g", str(setup.pid)], capture_output=True, text=True, check=False)
        for _ in range(150):
            if stopped.stdout == "":
                break
            time.sleep(0.1)
            stopped = subprocess.run(["pgrep", "-g", str(setup.pid)], capture_output=True, text=True, check=False)
        else:
            os.killpg(setup.pid, signal.SIGKILL)
