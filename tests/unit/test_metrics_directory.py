"""docs/operations.md "Metrics": the directory `serve --workers N` counts in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from comptoir.cli.commands import _metrics_directory


def test_a_given_directory_is_emptied_of_a_previous_runs_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "counter_123.db").write_bytes(b"old")
    (tmp_path / "notes.txt").write_text("kept")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    _metrics_directory(2)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(tmp_path)


def test_several_workers_get_a_fresh_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "")  # restored (unset) after the test
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    _metrics_directory(2)
    made = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    assert made.is_dir()
    assert list(made.iterdir()) == []
    made.rmdir()


def test_one_process_counts_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "")  # restored (unset) after the test
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    _metrics_directory(1)
    assert "PROMETHEUS_MULTIPROC_DIR" not in os.environ
