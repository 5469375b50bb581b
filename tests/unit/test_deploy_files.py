"""docs/operations.md "Production on PostgreSQL and Redis": the systemd units pass
`systemd-analyze verify`; compose.yaml and the Containerfile, which no test builds or runs (no
container engine where the tests run), are read: their services, their order, and that every
path and command they name exists."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from comptoir.cli import commands

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
INSTALLED = "/opt/comptoir/current/.venv/bin/comptoir"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def parse_comptoir(argv: list[str]) -> None:
    """Parses a `comptoir ...` command line as the command would, without running it."""
    assert argv[0] == "comptoir", argv
    group: click.Group = commands.cli
    words = argv[1:]
    while True:
        command = group.get_command(click.Context(group), words[0])
        assert command is not None, argv
        if isinstance(command, click.Group):
            group, words = command, words[1:]
            continue
        command.make_context(words[0], words[1:])
        return


def unit_lines(name: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in (UNITS / name).read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize(
    ("template", "instance"), [("comptoir-serve@.service", "8001"), ("comptoir-worker@.service", "1")]
)
def test_the_systemd_units_verify(template: str, instance: str, tmp_path: Path) -> None:
    assert SYSTEMD_ANALYZE is not None
    text = (UNITS / template).read_text()
    assert text.count(INSTALLED) == 1
    # verify checks that ExecStart's program exists: this checkout's stands in for the installed one
    unit = tmp_path / template.replace("@.", f"@{instance}.")
    unit.write_text(text.replace(INSTALLED, str(Path(sys.executable).parent / "comptoir")))
    result = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    # an unknown key or a bad value is only a warning: none is allowed
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize("template", ["comptoir-serve@.service", "comptoir-worker@.service"])
def test_the_systemd_units_run_installed_hardened_and_read_the_environment_file(template: str) -> None:
    lines = unit_lines(template)
    assert lines["EnvironmentFile"] == ["/etc/comptoir/comptoir.env"]
    assert lines["User"] == ["comptoir"]
    for hardening in ("NoNewPrivileges", "ProtectHome", "PrivateTmp", "RestrictSUIDSGID", "LockPersonality"):
        assert lines[hardening] == ["yes"], hardening
    assert lines["ProtectSystem"] == ["strict"]
    assert lines["CapabilityBoundingSet"] == [""]
    [exec_start] = lines["ExecStart"]
    program, *argv = shlex.split(exec_start.replace("%i", "8001"))
    assert program == INSTALLED
    parse_comptoir(["comptoir", *argv])
    if template.startswith("comptoir-serve"):
        assert "--no-worker" in argv
        assert argv[argv.index("--port") + 1] == "8001"


def test_the_environment_file_examples_hold_no_secret_and_only_known_settings() -> None:
    from comptoir.config import Settings

    known = {f"COMPTOIR_{name.upper()}" for name in Settings.model_fields}
    for example in [UNITS / "comptoir.env.example", ROOT / "deploy" / "compose" / "comptoir.env.example"]:
        values = dict(
            line.split("=", 1) for line in example.read_text().splitlines() if line and not line.startswith("#")
        )
        assert set(values) <= known, example
        assert values["COMPTOIR_SECRET_KEY"] == ""
        assert ":PASSWORD@" in values["COMPTOIR_DATABASE_URL"]


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return loaded


def test_compose_runs_postgres_redis_a_one_shot_migrate_then_the_app_and_workers() -> None:
    services = compose()["services"]
    assert sorted(services) == ["app", "migrate", "postgres", "redis", "worker"]
    assert services["migrate"]["restart"] == "no"
    assert services["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    for name in ("app", "worker"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        assert services[name]["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert "--no-worker" in services["app"]["command"]
    for name in ("migrate", "app", "worker"):
        service = services[name]
        assert service["build"] == {"context": ".", "dockerfile": "Containerfile"}
        assert service["env_file"] == "comptoir.env"  # the key comes from the file, never from here
        assert "environment" not in service
        parse_comptoir(service["command"])
    assert services["postgres"]["env_file"] == "postgres.env"
    assert "COMPTOIR_SECRET_KEY" not in (ROOT / "compose.yaml").read_text()


def containerfile_instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Containerfile").read_text().replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            instruction, _, rest = line.strip().partition(" ")
            found.append((instruction.upper(), " ".join(rest.split())))
    return found


def test_the_containerfile_builds_in_two_stages_without_dev_packages_and_runs_as_a_user() -> None:
    instructions = containerfile_instructions()
    stages = [rest for instruction, rest in instructions if instruction == "FROM"]
    assert len(stages) == 2
    assert stages[0].endswith(" AS build")
    runs = [rest for instruction, rest in instructions if instruction == "RUN"]
    assert "uv sync --no-dev --no-editable" in runs
    final = instructions[[i for i, (instruction, _) in enumerate(instructions) if instruction == "FROM"][1] :]
    assert ("USER", "comptoir") in final
    assert any(instruction == "RUN" and "useradd" in rest and "comptoir" in rest for instruction, rest in final)


def test_the_containerfile_copies_paths_that_exist_and_runs_real_commands() -> None:
    instructions = containerfile_instructions()
    for instruction, rest in instructions:
        if instruction == "COPY" and not rest.startswith("--from="):
            *sources, _target = rest.split()
            for source in sources:
                assert (ROOT / source).exists(), source
        if instruction == "CMD":
            parse_comptoir(yaml.safe_load(rest))
    [healthcheck] = [rest for instruction, rest in instructions if instruction == "HEALTHCHECK"]
    assert re.search(r"http://127\.0\.0\.1:8000/v1/health", healthcheck)
    assert ("EXPOSE", "8000") in instructions
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    for secret in ("*.db", "comptoir-secret.key", "*.env", ".venv", ".git"):
        assert secret in ignored
