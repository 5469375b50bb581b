"""docs/operations.md "Development": a test run drops the PostgreSQL databases it creates,
also when it is interrupted (Ctrl-C, SIGTERM), and the next run drops those of a run killed
outright; a database named otherwise is never touched (tests/databases.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import databases
from tests.conftest import postgres_url
from tests.waiting import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parents[2]


async def _exists(name: str) -> bool:
    connection = await databases._connect(databases.TEST_POSTGRES_URL)
    try:
        return bool(await connection.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name))
    finally:
        await connection.close()


def _ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start(said: Path, *, in_background: bool = False) -> subprocess.Popen[bytes]:
    """A pytest of its own (only the plugins it needs: it starts in a second) running
    tests/storage/interrupted_run.py, which writes its database's name to `said`; what it
    prints goes to `said` with the suffix .log. `in_background`: started as a shell starts a
    background job (`pytest &`), ignoring SIGINT from the start, as CI runners may."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COMPTOIR_"))}
    env |= {
        "INTERRUPTED_RUN_NAME_FILE": str(said),
        "COMPTOIR_TEST_POSTGRES_URL": databases.TEST_POSTGRES_URL,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    command = [sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider"]
    with said.with_suffix(".log").open("wb") as output:  # the child has its own copy
        return subprocess.Popen(
            [*command, "-p", "pytest_asyncio.plugin", "tests/storage/interrupted_run.py"],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            preexec_fn=_ignore_ctrl_c if in_background else None,
        )


def _wait_or_explain(process: subprocess.Popen[bytes], said: Path, name: str) -> None:
    """Wait for `process` to end; if it does not in time, fail with where it stands: its
    output, where its threads are (it prints them on SIGUSR1) and what the server is doing
    for it."""
    try:
        process.wait(2 * PATIENCE)
        return
    except subprocess.TimeoutExpired:
        pass
    dispositions = [
        line for line in Path(f"/proc/{process.pid}/status").read_text().splitlines() if line.startswith("Sig")
    ]
    process.send_signal(signal.SIGUSR1)
    time.sleep(2)
    activity = asyncio.run(_activity())
    output = said.with_suffix(".log").read_text(errors="replace")[-6000:]
    pytest.fail(
        f"the run of {name} did not end in {2 * PATIENCE:.0f} s\n--- its output\n{output}"
        f"\n--- its signals (masks)\n{chr(10).join(dispositions)}\n--- server\n{activity}"
    )


async def _activity() -> str:
    connection = await databases._connect(databases.TEST_POSTGRES_URL)
    try:
        rows = await connection.fetch(
            "SELECT pid, datname, state, wait_event_type, wait_event, now() - query_start AS age, query"
            " FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
        )
    finally:
        await connection.close()
    return "\n".join(str(dict(row)) for row in rows)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[subprocess.Popen[bytes], str, Path]]]:
    """Four runs started at once, each once it has created its database: its process, the
    database's name and the file that named it."""
    directory = tmp_path_factory.mktemp("runs")
    started = {
        kind: (_start(directory / kind, in_background=kind.endswith("background")), directory / kind)
        for kind in ("SIGINT", "SIGINT-background", "SIGTERM", "SIGKILL")
    }
    found = {}
    try:
        for kind, (process, said) in started.items():

            def created(process: subprocess.Popen[bytes] = process, said: Path = said) -> bool:
                assert process.poll() is None, "a run ended before creating its database"
                return said.exists() and bool(said.read_text())

            wait_until(created, f"the {kind} run's database", within=2 * PATIENCE)
            found[kind] = (process, said.read_text(), said)
        yield found
    finally:
        for process, _ in started.values():
            process.kill()
            process.wait(PATIENCE)
        databases.drop_stale()


@pytest.mark.parametrize("sig", ["SIGINT", "SIGINT-background", "SIGTERM"])
def test_an_interrupted_run_drops_its_database(
    sig: str, runs: dict[str, tuple[subprocess.Popen[bytes], str, Path]]
) -> None:
    process, name, said = runs[sig]
    assert asyncio.run(_exists(name))
    process.send_signal(getattr(signal, sig.removesuffix("-background")))
    # a few seconds of Python's work on a quiet machine (the interrupted run's report, then its
    # end): many times that on a loaded one
    _wait_or_explain(process, said, name)
    assert not asyncio.run(_exists(name))


def test_the_database_of_a_run_killed_outright_goes_at_the_next_start(
    runs: dict[str, tuple[subprocess.Popen[bytes], str, Path]],
) -> None:
    process, name, _ = runs["SIGKILL"]
    process.kill()
    process.wait(PATIENCE)
    assert asyncio.run(_exists(name))
    assert name in databases.drop_stale()
    assert not asyncio.run(_exists(name))


def test_only_databases_of_this_host_named_by_a_dead_process_are_stale() -> None:
    other_host = "f" * 6 if databases.HOST != "f" * 6 else "e" * 6
    dead = 2**22 + 12345  # above Linux's largest pid: no such process
    stale = f"comptoir_test_{databases.HOST}_{dead}_0123abcd"
    names = [
        stale,
        f"comptoir_test_{databases.HOST}_{os.getpid()}_0123abcd",  # a live process
        f"comptoir_test_{other_host}_{dead}_0123abcd",  # another host's
        f"comptoir_test_{databases.HOST}_{dead}_0123abcd_x",  # not our form
        f"comptoir_test_{databases.HOST}_{dead}_0123ABCD",
        f"comptoir_bench_{databases.HOST}_{dead}_0123abcd",
        "test",
    ]
    assert databases.stale_among(names) == [stale]


def test_a_database_of_any_name_made_by_the_suite_is_registered_until_dropped() -> None:
    """So the end of the run drops it (not the stale clean-up: its name is not ours)."""
    name = f"comptoir_other_{uuid.uuid4().hex[:8]}"
    asyncio.run(databases.create(name))
    try:
        assert asyncio.run(_exists(name))
        assert name in databases._registered
    finally:
        asyncio.run(databases.drop(name))
    assert name not in databases._registered
    assert not asyncio.run(_exists(name))


def test_the_kept_connection_serves_every_test_and_is_opened_again_once_ended() -> None:
    """`execute_kept` runs on one connection while it lives, and on a new one after the
    database's server processes were ended (as the outage tests and `DROP ... WITH (FORCE)` do)."""
    name = databases.new_name()
    asyncio.run(databases.create(name))
    url = postgres_url(name)
    try:
        databases.execute_kept("CREATE TABLE seen (n serial, pid int)", url)
        databases.execute_kept("INSERT INTO seen (pid) VALUES (pg_backend_pid())", url)
        databases.execute_kept("INSERT INTO seen (pid) VALUES (pg_backend_pid())", url)
        ended = f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        asyncio.run(databases.execute(ended))
        databases.execute_kept("INSERT INTO seen (pid) VALUES (pg_backend_pid())", url)

        async def pids() -> list[int]:
            connection = await databases._connect(url)
            try:
                return [row["pid"] for row in await connection.fetch("SELECT pid FROM seen ORDER BY n")]
            finally:
                await connection.close()

        first, again, after = asyncio.run(pids())
        assert first == again
        assert after != first
    finally:
        asyncio.run(databases.drop(name))
