"""docs/operations.md "Production on PostgreSQL and Redis", "Install": `uv sync --no-dev`
installs what Comptoir runs on and nothing of its tests, browsers, linters or generators, and
that is enough for every module of the package and for the `comptoir` command.

The environment is built in a temporary directory (UV_PROJECT_ENVIRONMENT) from the
checkout, from uv's cache when the main environment was synced before (as CI does)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
UV = shutil.which("uv")

# besides the dev group's own packages, what only they bring in
TEST_ONLY_DEPENDENCIES = {"pluggy", "iniconfig", "execnet", "black", "isort", "werkzeug"}

# every top-level module imported anywhere in the package, found by reading the sources
IMPORTS_RESOLVE = """
import ast, importlib.util, pathlib, sys
names = set()
for path in pathlib.Path(sys.argv[1]).rglob("*.py"):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
print(sorted(n for n in names if importlib.util.find_spec(n) is None))
"""


def normalized(requirement: str) -> str:
    return re.split(r"[\s\[=<>~!;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def dev_packages() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {normalized(r) for r in project["dependency-groups"]["dev"]} | TEST_ONLY_DEPENDENCIES


@pytest.mark.skipif(UV is None, reason="uv is not on the PATH (.ci/run installs it)")
def test_uv_sync_no_dev_installs_the_runtime_alone_and_the_command_runs(tmp_path: Path) -> None:
    assert UV is not None
    environment = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPTOIR_", "VIRTUAL_ENV"))}
    env["UV_PROJECT_ENVIRONMENT"] = str(environment)
    env["UV_COMPILE_BYTECODE"] = "0"  # the commands below run once: compiling would cost more
    frozen = ["--frozen"] if (ROOT / "uv.lock").exists() else []  # the lock the main sync wrote
    sync = subprocess.run(
        [UV, "sync", "--no-dev", "--no-editable", *frozen, "--python", sys.executable],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert sync.returncode == 0, sync.stderr
    python = environment / "bin" / "python"

    listing = subprocess.run(
        [UV, "pip", "list", "--python", str(python), "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    installed = {normalized(package["name"]) for package in json.loads(listing.stdout)}
    assert {"comptoir", "fastapi", "uvicorn", "sqlalchemy", "asyncpg", "redis"} <= installed
    assert installed & dev_packages() == set()
    assert "comptoir-client" in dev_packages()  # the workspace member stays out too

    missing = subprocess.run(
        [str(python), "-c", IMPORTS_RESOLVE, str(ROOT / "src" / "comptoir")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert missing.stdout == "[]\n"

    run = {k: v for k, v in env.items() if k != "UV_PROJECT_ENVIRONMENT"}
    help_text = subprocess.run(
        [str(environment / "bin" / "comptoir"), "--help"], env=run, capture_output=True, text=True, timeout=60
    )
    assert help_text.returncode == 0, help_text.stderr
    for command in ("backup", "migrate", "serve", "worker", "secret-key"):
        assert re.search(rf"^\s+{command}\s", help_text.stdout, re.MULTILINE), help_text.stdout

    # the migrations ship inside the installed package (not read from the checkout)
    work = tmp_path / "work"
    work.mkdir()
    migrated = subprocess.run(
        [str(environment / "bin" / "comptoir"), "migrate"],
        cwd=work,
        env=run,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert migrated.returncode == 0, migrated.stderr
    assert json.loads(migrated.stdout)["migrated"] is True
