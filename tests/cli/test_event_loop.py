"""The commands that keep running (`worker`, `sandbox`) run on uvloop, as `serve` does
through uvicorn: asyncio's own loop cost a delivery worker about a sixth of its CPU in its
selector and transports (docs/performance.md "A callback delivery")."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
import uvloop

from comptoir.cli import eventloop
from comptoir.observe import logs
from tests.cli.conftest import Result

EXAMPLE_SEED = Path(__file__).parents[2] / "examples" / "pizzeria.seed.json"


def test_a_long_running_command_runs_its_coroutine_on_uvloop() -> None:
    async def which_loop() -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    assert isinstance(eventloop.run(which_loop()), uvloop.Loop)


@pytest.mark.parametrize(
    ("argv", "started"), [(("worker",), "worker.<locals>.main"), (("sandbox", "--seed", str(EXAMPLE_SEED)), "_serve")]
)
def test_the_worker_and_the_sandbox_start_through_it(
    argv: tuple[str, ...], started: str, cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []

    def record(main: Coroutine[Any, Any, Any]) -> None:
        ran.append(main.__qualname__)
        main.close()

    monkeypatch.setattr(eventloop, "run", record)
    # the command would point the process's logging at this test's captured stderr, closed
    # after it: every later test of this process then fails to log
    monkeypatch.setattr(logs, "configure_logging", lambda _settings: None)
    assert cli(*argv).code == 0
    assert ran == [started]
