"""docs/operations.md "Retention" and "Database pool": a retention, pool or cache setting
that is zero, negative, not a number or absurd makes every command refuse to start, with one
line naming the variable, before it touches anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from comptoir.cli import main

VARIABLES = [
    "COMPTOIR_REQUEST_LOG_RETENTION_DAYS",
    "COMPTOIR_DELIVERY_LOG_RETENTION_DAYS",
    "COMPTOIR_EVENT_RETENTION_DAYS",
    "COMPTOIR_DATABASE_POOL_SIZE",
    "COMPTOIR_DATABASE_DIRECT_POOL_SIZE",
    "COMPTOIR_CONNECTION_CACHE_SIZE",
]
BAD = ["0", "-1", "ten", "nan", "inf", "1e400", "99999999999"]


@pytest.mark.parametrize("variable", VARIABLES)
@pytest.mark.parametrize("value", BAD)
def test_a_bad_value_refuses_to_start_naming_the_variable(
    variable: str, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", f"sqlite:///{tmp_path}/comptoir.db")
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as exit_:
        main(["worker"])
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {variable}: "), err
    assert err.count("\n") == 1
    assert f"(got {value!r})" in err
    assert list(tmp_path.iterdir()) == []  # no database, no key file


@pytest.mark.parametrize("value", ["-1", "x", "1001"])
def test_a_bad_overflow_refuses_to_start(
    value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", f"sqlite:///{tmp_path}/comptoir.db")
    monkeypatch.setenv("COMPTOIR_DATABASE_MAX_OVERFLOW", value)
    with pytest.raises(SystemExit) as exit_:
        main(["serve"])
    assert exit_.value.code == 1
    assert capsys.readouterr().err.startswith("error: COMPTOIR_DATABASE_MAX_OVERFLOW: ")
