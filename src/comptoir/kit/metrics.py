"""The Prometheus metrics of a process (docs/operations.md "Metrics").

Every metric is defined here, once; the layers that count import this module (it imports
nothing of Comptoir's), and `observe/endpoints.py` serves them. Labels hold only bounded
values: a route's template, never its path; a method from a fixed list; an outcome or a
kind from a fixed list. No id, token or address is ever a label.

Under `serve --workers N` each process writes its values to files in
PROMETHEUS_MULTIPROC_DIR (prometheus-client's multiprocess mode, chosen when the module is
first imported), and a scrape answered by any one process adds up all of them.
"""

from __future__ import annotations

import asyncio
import os
import time
from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

__all__ = ["CONTENT_TYPE_LATEST", "exposition"]

disable_created_metrics()  # no `_created` series: half the page, and nothing an alert needs

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
if os.environ.get(MULTIPROC_DIR):  # the files are made as the metrics are: the directory first
    os.makedirs(os.environ[MULTIPROC_DIR], exist_ok=True)
UNMATCHED = "unmatched"  # the route label of a request no route matched
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER_METHOD = "other"

REQUESTS = Counter(
    "comptoir_http_requests",
    "HTTP requests answered, by route template, method and status.",
    ["route", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "comptoir_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by route template and method.",
    ["route", "method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
DB_IN_USE = Gauge(
    "comptoir_db_connections_in_use",
    "Database connections checked out of a pool (engine: SQLAlchemy; direct: the hot-path asyncpg pool).",
    ["pool"],
    multiprocess_mode="livesum",
)
DB_ACQUIRE_SECONDS = Histogram(
    "comptoir_db_connection_acquire_seconds",
    "Time to obtain a database connection from a pool, waiting for a free one or opening a new one.",
    ["pool"],
    buckets=(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5),
)
DELIVERIES = Counter(
    "comptoir_callback_deliveries",
    "Callback POSTs made by the delivery worker, by outcome (acknowledged, retry, dropped).",
    ["outcome"],
)
ATTEMPTS_IN_FLIGHT = Gauge(
    "comptoir_callback_attempts_in_flight",
    "Callback POSTs sent and not answered yet.",
    multiprocess_mode="livesum",
)
STREAMS_OPEN = Gauge(
    "comptoir_callback_streams_open",
    "Event streams (GET /v1/callback/stream) open.",
    multiprocess_mode="livesum",
)
BOARD_STREAMS_OPEN = Gauge(
    "comptoir_board_streams_open",
    "Live boards of the back office open (GET /locations/:id/today/stream).",
    multiprocess_mode="livesum",
)
RATE_LIMITED = Counter(
    "comptoir_rate_limit_refusals",
    "Requests refused with 429 by the rate limits, by kind (general, heavy, image).",
    ["kind"],
)
LOOP_LAG = Gauge(
    "comptoir_event_loop_lag_seconds",
    "How late the event loop ran a timer due now (the largest of the live processes).",
    multiprocess_mode="livemax",
)
DEPENDENCY_UNAVAILABLE = Gauge(
    "comptoir_dependency_unavailable",
    "1 while a dependency (database, redis) is unreachable or too slow for this process, else 0.",
    ["dependency"],
    multiprocess_mode="livemax",
)
DEPENDENCY_FAILURES = Counter(
    "comptoir_dependency_failures",
    "Operations that failed because a dependency (database, redis) was unreachable or too slow.",
    ["dependency"],
)
OLDEST_UNDELIVERED = "comptoir_callback_oldest_undelivered_seconds"

# Every label value known in advance is there from the start, at 0: a series an alert
# watches exists before its first event (docs/operations.md "Metrics").
for _outcome in ("acknowledged", "retry", "dropped"):
    DELIVERIES.labels(_outcome)
for _kind in ("general", "heavy", "image"):
    RATE_LIMITED.labels(_kind)
for _dependency in ("database", "redis"):
    DEPENDENCY_FAILURES.labels(_dependency)
    DEPENDENCY_UNAVAILABLE.labels(_dependency)


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_DIR) or None


# --- HTTP requests --------------------------------------------------------------------------

_children: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}


def _child(key: tuple[str, str, int]) -> tuple[Counter, Histogram]:
    child = _children.get(key)
    if child is None:
        route, method, status = key
        label = method if method in _METHODS else OTHER_METHOD
        child = (REQUESTS.labels(route, label, str(status)), REQUEST_SECONDS.labels(route, label))
        if len(_children) < 10_000:  # bounded anyway: templates x methods x statuses
            _children[key] = child
    return child


class RequestTally:
    """The requests answered since the last `flush`, counted in plain numbers: a request adds
    to a count, a sum and one bucket (no lock, no file), and `flush` adds them all to the
    Prometheus series at once, as if each had been observed there (tests/unit/
    test_metrics_tally.py compares the pages). The delivery of each figure waits at most
    FLUSH_SECONDS: `watch_loop_lag` flushes twice a second, a scrape and the end of the
    process flush first. Used from the event loop's thread only."""

    FLUSH_SECONDS = 0.5

    def __init__(self) -> None:
        self._bounds = tuple(REQUEST_SECONDS._upper_bounds)  # the histogram's, +Inf last
        self._pending: dict[tuple[str, str, int], list[Any]] = {}

    def add(self, route: str, method: str, status: int, seconds: float) -> None:
        key = (route, method, status)
        entry = self._pending.get(key)
        if entry is None:
            entry = self._pending[key] = [0, 0.0, [0] * len(self._bounds)]
        entry[0] += 1
        entry[1] += seconds
        entry[2][bisect_left(self._bounds, seconds)] += 1

    def flush(self) -> None:
        pending, self._pending = self._pending, {}
        for key, (count, total, buckets) in pending.items():
            counter, histogram = _child(key)
            counter.inc(count)
            histogram._sum.inc(total)  # what Histogram.observe does, for `count` at once
            for index, inside in enumerate(buckets):
                if inside:
                    histogram._buckets[index].inc(inside)


_tally = RequestTally()


def request_done(route: str, method: str, status: int, seconds: float) -> None:
    """Count one answered request (`http/middleware.py`); on the metrics page within
    RequestTally.FLUSH_SECONDS."""
    _tally.add(route, method, status, seconds)


def flush_requests() -> None:
    """Put the requests counted so far on the Prometheus series (from the event loop's thread)."""
    _tally.flush()


# --- the event loop ---------------------------------------------------------------------------


async def watch_loop_lag(interval: float = RequestTally.FLUSH_SECONDS) -> None:
    """Until cancelled: sleep `interval`, record how much later than asked the loop woke, and
    flush the requests counted meanwhile."""
    while True:
        asked = time.perf_counter()
        await asyncio.sleep(interval)
        LOOP_LAG.set(max(0.0, time.perf_counter() - asked - interval))
        flush_requests()


def process_exited() -> None:
    """Count the last requests, and forget this process's live gauges (`livesum`, `livemax`)
    in multiprocess mode."""
    flush_requests()
    path = multiprocess_dir()
    if path is not None:
        multiprocess.mark_process_dead(os.getpid(), path)


# --- exposition -------------------------------------------------------------------------------


class _Values:
    """A collector of values computed for one scrape."""

    def __init__(self, metrics: Iterable[Metric]) -> None:
        self._metrics = list(metrics)

    def collect(self) -> Iterable[Metric]:
        return self._metrics


def oldest_undelivered(seconds: float) -> Metric:
    return GaugeMetricFamily(
        OLDEST_UNDELIVERED,
        "Age of the oldest event still to be delivered to an active, enabled callback (0: none).",
        value=seconds,
    )


def exposition(scraped: Iterable[Metric] = ()) -> bytes:
    """The text format of every process's metrics (all of `serve`'s workers in multiprocess
    mode), then the values computed for this scrape."""
    path = multiprocess_dir()
    if path is not None:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path)
        text = generate_latest(registry)
    else:
        text = generate_latest(REGISTRY)
    extra = CollectorRegistry(auto_describe=False)
    extra.register(_Values(scraped))
    return text + generate_latest(extra)
