"""docs/operations.md "Retention" and "Database pool": the settings and their defaults."""

from __future__ import annotations

from datetime import timedelta

import pytest

from comptoir.config import Settings
from comptoir.jobs.timed import Retention

NAMES = ("REQUEST_LOG_RETENTION_DAYS", "DELIVERY_LOG_RETENTION_DAYS", "EVENT_RETENTION_DAYS")


def test_the_settings_give_the_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPTOIR_REQUEST_LOG_RETENTION_DAYS", "0.5")
    monkeypatch.setenv("COMPTOIR_DELIVERY_LOG_RETENTION_DAYS", "2")
    monkeypatch.setenv("COMPTOIR_EVENT_RETENTION_DAYS", "90")
    assert Retention.of(Settings()) == Retention(
        events=timedelta(days=90), delivery_log=timedelta(days=2), request_log=timedelta(hours=12)
    )


def test_the_retention_defaults_are_7_and_30_days(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NAMES:
        monkeypatch.delenv(f"COMPTOIR_{name}", raising=False)
    assert Retention.of(Settings()) == Retention(
        events=timedelta(days=30), delivery_log=timedelta(days=30), request_log=timedelta(days=7)
    )


def test_the_pool_and_cache_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATABASE_POOL_SIZE", "DATABASE_MAX_OVERFLOW", "DATABASE_DIRECT_POOL_SIZE", "CONNECTION_CACHE_SIZE"):
        monkeypatch.delenv(f"COMPTOIR_{name}", raising=False)
    settings = Settings()
    assert (
        settings.database_pool_size,
        settings.database_max_overflow,
        settings.database_direct_pool_size,
        settings.connection_cache_size,
    ) == (10, 10, 10, 10_000)
