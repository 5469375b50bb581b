"""tests/connection_budget.py: the tests running at once share PostgreSQL's connections."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.connection_budget import _take, share


def gone_pid() -> int:
    """The id of a process that has ended."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_share_that_fits_beside_the_others_is_taken(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    path.write_text(f"{os.getppid()} 45\n")
    assert _take(path, os.getpid(), 45, budget=90) is True
    assert path.read_text() == f"{os.getppid()} 45\n{os.getpid()} 45\n"


def test_a_share_that_does_not_fit_waits_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    path.write_text(f"{os.getppid()} 46\n")
    assert _take(path, os.getpid(), 45, budget=90) is False
    assert path.read_text() == f"{os.getppid()} 46\n"


def test_a_share_larger_than_the_budget_is_taken_when_none_runs_beside(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    assert _take(path, os.getpid(), 120, budget=90) is True
    assert path.read_text() == f"{os.getpid()} 120\n"


def test_the_share_of_a_process_that_ended_is_not_counted(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    path.write_text(f"{gone_pid()} 90\n")
    assert _take(path, os.getpid(), 45, budget=90) is True
    assert path.read_text() == f"{os.getpid()} 45\n"


def test_a_share_is_given_back_when_its_block_ends(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    path.write_text(f"{os.getppid()} 20\n")
    with share(path, 45, budget=90):
        assert path.read_text() == f"{os.getppid()} 20\n{os.getpid()} 45\n"
    assert path.read_text() == f"{os.getppid()} 20\n"
