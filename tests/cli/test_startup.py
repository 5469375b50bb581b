"""A serving process imports and builds its application with the cyclic garbage collector
paused, then collects again (docs/performance.md "Start-up")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from comptoir.observe import logs
from tests.cli.conftest import Result
from tests.conftest import SECRET_KEY

# Counts, in a new interpreter where nothing of the application is imported yet, the
# collections that start while the application is imported and built: by the factory
# `serve` hands uvicorn, or by importing `comptoir.app` and calling its own.
_COUNT = """
import gc, json, sys
started = []
gc.callbacks.append(lambda phase, info: phase == "start" and started.append(info["generation"]))
if sys.argv[1] == "serving":
    from comptoir.serving import app_from_environment
    before = len(started)
    app = app_from_environment()
else:
    before = len(started)
    from comptoir.app import app_from_environment
    app = app_from_environment()
print(json.dumps({"collections": len(started) - before, "enabled": gc.isenabled(), "routes": len(app.routes)}))
"""


def _build_in_a_new_process(factory: str, tmp_path: Path) -> dict[str, Any]:
    env = {
        **os.environ,
        "COMPTOIR_DATABASE_URL": f"sqlite:///{tmp_path / 'startup.db'}",
        "COMPTOIR_SECRET_KEY": SECRET_KEY,
    }
    done = subprocess.run(
        [sys.executable, "-c", _COUNT, factory], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    answer: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return answer


def test_the_factory_serve_runs_imports_and_builds_the_app_without_a_collection(tmp_path: Path) -> None:
    paused = _build_in_a_new_process("serving", tmp_path)
    unpaused = _build_in_a_new_process("app", tmp_path)
    assert paused["routes"] == unpaused["routes"]
    assert paused["collections"] == 0
    assert unpaused["collections"] > 100  # what the pause spares: the collector ran all along
    assert paused["enabled"] is True  # and collects again once the app is built


def test_serve_hands_uvicorn_that_factory(cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch) -> None:
    handed: list[tuple[Any, dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: handed.append((app, options)))
    # the command would point the process's logging at this test's captured stderr
    monkeypatch.setattr(logs, "configure_logging", lambda _settings: None)
    assert cli("serve", "--port", "8123").code == 0
    [(app, options)] = handed
    assert (app, options["factory"]) == ("comptoir.serving:app_from_environment", True)
