"""Requests counted in a tally (kit/metrics.py `RequestTally`) reach the Prometheus series at a
flush exactly as if each had been observed there."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

from comptoir.kit import metrics

DURATIONS = [0.0004, 0.001, 0.0011, 0.003, 0.004, 0.2, 0.2, 7.5, 12.0, 0.05]


def _samples(*families: object) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (
            sample.name,
            tuple(sorted((k, v) for k, v in sample.labels.items() if k not in ("route", "method", "status"))),
        ): sample.value
        for family in families
        for metric in family.collect()  # type: ignore[attr-defined]
        for sample in metric.samples
        if sample.labels.get("route", "/t") in ("/t", "/test/tally/{x}")
    }


def test_a_flush_puts_on_the_series_what_observing_each_request_would() -> None:
    registry = CollectorRegistry()
    counter = Counter("comptoir_http_requests", "", ["route", "method", "status"], registry=registry)
    histogram = Histogram(
        "comptoir_http_request_duration_seconds", "", ["route", "method"], registry=registry,
        buckets=metrics.REQUEST_SECONDS._upper_bounds[:-1],
    )  # fmt: skip
    for seconds in DURATIONS:
        counter.labels("/t", "GET", "200").inc()
        histogram.labels("/t", "GET").observe(seconds)
        metrics.request_done("/test/tally/{x}", "GET", 200, seconds)
    metrics.flush_requests()
    expected = _samples(counter, histogram)
    got = _samples(metrics.REQUESTS, metrics.REQUEST_SECONDS)
    assert got == expected
    assert got[("comptoir_http_requests_total", ())] == 10
    assert got[("comptoir_http_request_duration_seconds_bucket", (("le", "0.001"),))] == 2


def test_a_request_reaches_the_series_at_the_flush_not_before() -> None:
    child = metrics.REQUESTS.labels("/test/tally/later", "POST", "201")
    before = child._value.get()
    metrics.request_done("/test/tally/later", "POST", 201, 0.01)
    metrics.request_done("/test/tally/later", "POST", 201, 0.02)
    assert child._value.get() == before
    metrics.flush_requests()
    assert child._value.get() == before + 2
    metrics.flush_requests()  # nothing counted twice
    assert child._value.get() == before + 2


def test_an_unknown_method_is_counted_as_other() -> None:
    child = metrics.REQUESTS.labels("/test/tally/other", "other", "405")
    before = child._value.get()
    metrics.request_done("/test/tally/other", "BREW", 405, 0.001)
    metrics.flush_requests()
    assert child._value.get() == before + 1
