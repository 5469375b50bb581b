"""docs/operations.md "Slow clients and connections": the default connection cap of a process
follows its file limit, keeping a tenth of it (at least 64 files) for everything else."""

from __future__ import annotations

import resource

import pytest

from comptoir.config import Settings, connections_for_file_limit


@pytest.mark.parametrize(
    ("soft_limit", "cap"),
    [(1024, 922), (20000, 18000), (256, 192), (65, 1), (resource.RLIM_INFINITY, 58983)],
)
def test_the_default_cap_keeps_a_tenth_of_the_file_limit(soft_limit: int, cap: int) -> None:
    assert connections_for_file_limit(soft_limit) == cap


def test_the_cap_set_by_the_environment_wins_and_an_empty_one_is_the_default() -> None:
    assert Settings(max_connections=50).connection_cap == 50
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert Settings(max_connections="").connection_cap == connections_for_file_limit(soft)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("header_timeout_seconds", 0),
        ("body_timeout_seconds", -1),
        ("body_min_bytes_per_second", 0),
        ("max_connections", 0),
    ],
)
def test_timeouts_and_the_cap_must_be_positive(name: str, value: int) -> None:
    with pytest.raises(ValueError, match=name):
        Settings(**{name: value})
