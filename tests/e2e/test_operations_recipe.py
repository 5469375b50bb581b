"""docs/operations.md "Production on PostgreSQL and Redis" runs as written, in bash, from a
fresh clone of this repository, on the local PostgreSQL and Redis: the blocks marked
`<!-- recipe: setup -->`, then `backup` (a dump), `rotate` (a new server key, accepted and made
the current one), a restart of the processes, `retire` (the old key retired), and `restore`
(the dump, older than the rotation, restored). Only the first block (the names,
`<!-- recipe: settings -->`) is the test's own: a role, databases, directories, a port and a
Redis prefix of its own, all removed at the end. The recipe runs once, and each step is
checked where it ends: the servers answer and a worker delivers; the dump is its owner's only;
after the rotation every process runs with the new key, tokens made before still work and the
old key is refused; and the older dump restores with the key kept for it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import signal
import socket
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
from comptoir.db.server_key import MISMATCH
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


def test_the_page_marks_one_settings_block_then_the_blocks_of_each_step() -> None:
    assert len(recipe_blocks("settings")) == 1
    assert len(recipe_blocks("setup")) == 6
    assert len(recipe_blocks("backup")) == 1
    assert len(recipe_blocks("rotate")) == 2
    assert len(recipe_blocks("retire")) == 1
    assert len(recipe_blocks("restore")) == 1


@pytest.fixture
def names(tmp_path: Path) -> Iterator[dict[str, str]]:
    suffix = uuid.uuid4().hex[:10]
    admin = make_url(TEST_POSTGRES_URL)
    port = str(free_port())
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
        "PORT": port,
        "SERVERS": "2",
        "DELIVERY_WORKERS": "2",
        "WORKER_METRICS_PORT": str(two_free_ports()),
        "PUBLIC_URL": f"http://127.0.0.1:{port}",
    }
    yield names
    for database in (names["RESTORE_DB"], names["DB_NAME"]):
        asyncio.run(_execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
    asyncio.run(_execute(f'DROP ROLE IF EXISTS "{names["DB_ROLE"]}"'))
    client = redis.Redis.from_url(TEST_REDIS_URL)
    for key in client.scan_iter(match=f"{names['REDIS_PREFIX']}*"):
        client.delete(key)
    client.close()


def run_recipe(kind: str, names: dict[str, str], tmp_path: Path, script: str | None = None) -> subprocess.Popen[bytes]:
    """Run the blocks marked `kind` (or `script`), after the test's names, in a bash of its
    own, logged to recipe-<kind>.log."""
    settings = "".join(f"{name}={shlex.quote(value)}\n" for name, value in names.items())
    body = script if script is not None else "".join(recipe_blocks(kind))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPTOIR_", "VIRTUAL_ENV", "PG"))}
    # uv installs for the interpreter running the tests, whose packages its cache holds
    env["UV_PYTHON"] = sys.executable
    # the test's callback receiver listens on loopback, which production refuses
    env |= LOOPBACK
    with (tmp_path / f"recipe-{kind}.log").open("ab") as log:
        # a session of its own: the background processes the recipe starts stay in its group
        return subprocess.Popen(
            ["bash", "-c", "set -euo pipefail\n" + settings + body],
            cwd=tmp_path,
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )


def finish(process: subprocess.Popen[bytes], kind: str, tmp_path: Path, timeout: float) -> None:
    code = process.wait(timeout=timeout)
    assert code == 0, (tmp_path / f"recipe-{kind}.log").read_text()


def group_of(process: subprocess.Popen[bytes]) -> list[int]:
    """The processes still running in the process group `process` leads."""
    found = subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True, text=True, check=False)
    return [int(pid) for pid in found.stdout.split()]


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the group of `process` (the servers and workers the recipe started), and
    wait until every one has exited; SIGKILL after 15 seconds."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    for _ in range(150):
        if group_of(process) == []:
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def server_keys_of(process: subprocess.Popen[bytes]) -> list[str]:
    """The COMPTOIR_SECRET_KEY each process of the group of `process` was started with."""
    keys = []
    for pid in group_of(process):
        with contextlib.suppress(OSError):
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            keys += [entry.split(b"=", 1)[1].decode() for entry in environ if entry.startswith(b"COMPTOIR_SECRET_KEY=")]
    return keys


def read_environment_file(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if line and not line.startswith("#"))


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def comptoir(names: dict[str, str], database_url: str, key: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed release's `comptoir`, on `database_url` with the server key `key`."""
    binary = Path(names["COMPTOIR_ROOT"]) / "current" / ".venv" / "bin" / "comptoir"
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")}
    env |= {"COMPTOIR_DATABASE_URL": database_url, "COMPTOIR_SECRET_KEY": key}
    return subprocess.run([str(binary), *args], env=env, capture_output=True, text=True, check=False, timeout=120)


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


def preparation_time(database_url: str) -> str:
    found = subprocess.run(
        [
            *("psql", make_url(database_url).render_as_string(hide_password=False), "-tAc"),
            "SELECT preparation_time FROM locations WHERE name = 'Recipe kitchen'",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout


def two_free_ports() -> int:
    """A port free, with the next one free too."""
    while True:
        port = free_port()
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port


def acknowledged(url: str) -> int:
    """The acknowledged deliveries a metrics page counts."""
    page = httpx.get(url, timeout=10)
    assert page.status_code == 200, page.text
    found = re.search(r'^comptoir_callback_deliveries_total\{outcome="acknowledged"\} ([0-9.]+)$', page.text, re.M)
    assert found is not None, page.text
    return int(float(found.group(1)))


def test_the_production_recipe_runs_serves_delivers_backs_up_rotates_the_key_and_restores(
    names: dict[str, str], tmp_path: Path
) -> None:
    etc, backups = Path(names["COMPTOIR_ETC"]), Path(names["BACKUP_DIR"])
    base_url = f"http://127.0.0.1:{names['PORT']}"
    started = [run_recipe("setup", names, tmp_path)]
    try:
        finish(started[0], "setup", tmp_path, timeout=240)
        assert mode(etc / "secret-key") == 0o600
        assert mode(etc / "comptoir.env") == 0o600
        environment = read_environment_file(etc / "comptoir.env")
        assert environment["COMPTOIR_DATABASE_URL"].startswith(f"postgresql://{names['DB_ROLE']}:")
        old_key = environment["COMPTOIR_SECRET_KEY"]
        assert old_key == (etc / "secret-key").read_text().strip()

        assert httpx.get(f"{base_url}/v1/health", timeout=PATIENCE).json() == {"status": "ok"}
        with running_receiver() as receiver:
            writer = subscribe(environment, receiver)
            headers = {"X-Access-Token": writer}

            def update(minutes: int) -> None:
                patched = httpx.patch(f"{base_url}/v1/location", json={"preparation_time": minutes}, headers=headers)
                assert patched.status_code == 200, patched.text

            # the servers run --no-worker: what arrives comes from a `comptoir worker`
            update(25)
            wait_until(lambda: len(receiver.received) == 1, "the delivery")
            assert receiver.received[0].path == "/hook"
            # the servers count their rate limits in the Redis of the environment file
            client = redis.Redis.from_url(TEST_REDIS_URL)
            try:
                assert list(client.scan_iter(match=f"{names['REDIS_PREFIX']}*")) != []
            finally:
                client.close()
            assert "callback_worker_started" not in (Path(names["LOG_DIR"]) / "serve.log").read_text()
            # each worker's deliveries on its own metrics page, the servers' pages show none
            first_worker = int(names["WORKER_METRICS_PORT"])
            delivered = [
                acknowledged(f"http://127.0.0.1:{first_worker + i}/metrics")
                for i in range(int(names["DELIVERY_WORKERS"]))
            ]
            assert (sorted(delivered), acknowledged(f"{base_url}/metrics")) == ([0, 1], 0)
            # the OAuth metadata names the configured public URL
            metadata = httpx.get(f"{base_url}/.well-known/oauth-authorization-server", timeout=5).json()
            assert metadata["issuer"] == names["PUBLIC_URL"]

            # a dump, its owner's only
            finish(run_recipe("backup", names, tmp_path), "backup", tmp_path, timeout=120)
            [dump] = list(backups.glob("comptoir-*.dump"))
            assert dump.stat().st_size > 0
            assert (mode(backups), mode(dump)) == (0o700, 0o600)

            # a new key accepted beside the old one and made the current one; the old key kept
            finish(run_recipe("rotate", names, tmp_path), "rotate", tmp_path, timeout=120)
            new_key = (etc / "secret-key").read_text().strip()
            assert len(new_key) == 64
            assert new_key != old_key
            assert read_environment_file(etc / "comptoir.env") == environment | {"COMPTOIR_SECRET_KEY": new_key}
            assert mode(etc / "comptoir.env") == 0o600
            [kept] = list((etc / "old-keys").iterdir())
            assert kept.read_text().strip() == old_key
            assert (mode(etc / "old-keys"), mode(kept), mode(etc / "secret-key")) == (0o700, 0o600, 0o600)
            assert not (etc / "secret-key.new").exists()
            update(30)  # the processes still running with the old key serve on

            # the processes restarted the way the recipe started them: they read the new key
            stop(started[0])
            setup = recipe_blocks("setup")
            assert "migrate" in setup[-2]
            assert "serve" in setup[-1]
            start_again = 'comptoir="$COMPTOIR_ROOT/current/.venv/bin/comptoir"\n' + setup[-2] + setup[-1]
            started.append(run_recipe("restart", names, tmp_path, script=start_again))
            finish(started[-1], "restart", tmp_path, timeout=120)
            keys = server_keys_of(started[-1])
            # one `serve` and its SERVERS processes, and the DELIVERY_WORKERS workers
            assert len(keys) >= 1 + int(names["SERVERS"]) + int(names["DELIVERY_WORKERS"]), keys
            assert set(keys) == {new_key}

            # the old key retired: a process given it refuses to start
            finish(run_recipe("retire", names, tmp_path), "retire", tmp_path, timeout=120)
            refused = comptoir(names, environment["COMPTOIR_DATABASE_URL"], old_key, "migrate")
            assert (refused.returncode, refused.stderr) == (1, f"error: {MISMATCH}\n")
            # a token made before the rotation still works, and the restarted workers deliver
            update(35)
            wait_until(lambda: len(receiver.by_event()) == 3, "the third event's delivery")  # 25, 30, 35

        # the dump, older than the rotation, restores with the key kept for it, then takes the current one
        finish(run_recipe("restore", names, tmp_path), "restore", tmp_path, timeout=180)
        assert f"{dump} opens with {kept}\n" in (tmp_path / "recipe-restore.log").read_text()
        restored = make_url(environment["COMPTOIR_DATABASE_URL"]).set(database=names["RESTORE_DB"])
        restored_url = restored.render_as_string(hide_password=False)
        assert preparation_time(restored_url) == "25\n"
        assert comptoir(names, restored_url, old_key, "migrate").stderr == f"error: {MISMATCH}\n"
        log = comptoir(names, restored_url, new_key, "admin", "delivery-log", "--token", writer)
        assert (log.returncode, log.stderr) == (0, ""), log.stderr  # the token made before the dump works there
    finally:
        for process in started:
            stop(process)
