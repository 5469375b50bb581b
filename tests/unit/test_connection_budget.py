"""tests/connection_budget.py: the tests running at once share PostgreSQL's connections."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.connection_budget import _take, share


def gone_pid() -> int:
    """The id of a process that has ended."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_share_that_fits_beside_the_others_is_taken(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    path.write_text(f"{os.getppid()} 45\n")
    assert _take(path, os.getpid(), 45, budget=90, since=time.monotonic_ns()) is True
    assert path.read_text() == f"{os.getppid()} 45\n{os.getpid()} 45\n"


def test_a_share_that_does_not_fit_waits_in_line_and_takes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    path.write_text(f"{os.getppid()} 46\n")
    since = time.monotonic_ns()
    assert _take(path, os.getpid(), 45, budget=90, since=since) is False
    assert path.read_text() == f"{os.getppid()} 46\n{os.getpid()} 45 {since}\n"


def test_a_share_that_fits_waits_behind_one_asked_before_it(tmp_path: Path) -> None:
    """A test that must run alone is not starved by the tests beside it starting one after
    another: they wait behind it, though their shares would fit."""
    path = tmp_path / "shares"
    path.write_text(f"{os.getppid()} 90 {time.monotonic_ns()}\n")
    assert _take(path, os.getpid(), 25, budget=90, since=time.monotonic_ns()) is False
    assert path.read_text().splitlines()[1].startswith(f"{os.getpid()} 25 ")


def test_a_share_asked_first_is_taken_before_one_asked_after(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    since = time.monotonic_ns()
    path.write_text(f"{os.getppid()} 25 {since + 1}\n")
    assert _take(path, os.getpid(), 90, budget=90, since=since) is True
    assert path.read_text() == f"{os.getpid()} 90\n{os.getppid()} 25 {since + 1}\n"


def test_a_share_larger_than_the_budget_is_taken_when_none_runs_beside(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    assert _take(path, os.getpid(), 120, budget=90, since=time.monotonic_ns()) is True
    assert path.read_text() == f"{os.getpid()} 120\n"


@pytest.mark.parametrize("waiting", [False, True], ids=["held", "waited-for"])
def test_the_share_of_a_process_that_ended_is_not_counted(tmp_path: Path, waiting: bool) -> None:
    """Held or waited for: a worker killed outright holds nothing back."""
    path = tmp_path / "shares"
    path.write_text(f"{gone_pid()} 90" + (f" {time.monotonic_ns()}" if waiting else "") + "\n")
    assert _take(path, os.getpid(), 45, budget=90, since=time.monotonic_ns()) is True
    assert path.read_text() == f"{os.getpid()} 45\n"


def test_a_share_is_given_back_when_its_block_ends(tmp_path: Path) -> None:
    path = tmp_path / "shares"
    path.write_text(f"{os.getppid()} 20\n")
    with share(path, 45, budget=90):
        assert path.read_text() == f"{os.getppid()} 20\n{os.getpid()} 45\n"
    assert path.read_text() == f"{os.getppid()} 20\n"


def test_a_share_waited_for_and_given_up_leaves_no_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Interrupted while it waits (Ctrl-C, a timeout): its line goes, and holds no one back."""
    path = tmp_path / "shares"
    path.write_text(f"{os.getppid()} 90\n")

    def give_up(_seconds: float) -> None:
        assert path.read_text().splitlines()[1].startswith(f"{os.getpid()} 25 ")  # in line
        raise KeyboardInterrupt

    monkeypatch.setattr(time, "sleep", give_up)
    with pytest.raises(KeyboardInterrupt), share(path, 25, budget=90):
        raise AssertionError("the share was taken beside a test running alone")
    assert path.read_text() == f"{os.getppid()} 90\n"
