"""`GET /v1/ready` and the Prometheus metrics page (docs/operations.md "Health and
readiness", "Metrics"). Neither takes a token; neither shows an address, a secret or a
tenant's data."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

import structlog
from fastapi import APIRouter, FastAPI
from prometheus_client.metrics_core import Metric
from starlette.requests import Request
from starlette.responses import Response

from comptoir.callbacks.service import oldest_undelivered_age
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.errors import DependencyUnavailable, NotReady, RoutingError
from comptoir.http.forwarded import peer_of
from comptoir.http.routing import JSON, ComptoirRoute
from comptoir.http.state import app_state
from comptoir.kit import clock, metrics
from comptoir.observe import readiness

log = structlog.get_logger("comptoir.metrics")

router = APIRouter(route_class=ComptoirRoute)


@router.get("/ready", include_in_schema=False)
async def ready(request: Request) -> Response:
    """Readiness: the database answers, is migrated to this version's head, and Redis
    answers when configured; otherwise a 503 naming the failed checks."""
    state = app_state(request)
    verdicts = await readiness.checks(state.settings, state.db)
    failed = sorted(name for name, verdict in verdicts.items() if verdict != readiness.OK)
    if failed:
        raise NotReady(f"Not ready: {', '.join(f'{name} {verdicts[name]}' for name in failed)}")
    return JSON({"status": "ready", "checks": verdicts})


def allowed(settings: Settings, peer: str | None) -> bool:
    """Whether a client whose TCP peer address is `peer` may read the metrics: any, unless
    COMPTOIR_METRICS_ALLOWED_NETWORKS names networks (never judged by a forwarded header)."""
    networks = settings.metrics_networks
    if not networks:
        return True
    try:
        address = ipaddress.ip_address(peer) if peer is not None else None
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # an IPv4 client of a server listening on "::"
    return address is not None and any(address in network for network in networks)


class MetricsPage:
    """A process's metrics page (docs/operations.md "Metrics"): `serve` answers it at
    COMPTOIR_METRICS_PATH, `comptoir worker --metrics-port` on its own port.

    The age of the oldest undelivered event is read from the database at most once a second,
    by one scrape at a time: the others of that second get the same value, so scrapers never
    add up to load on the database. When the database does not answer, the page goes out
    without that figure."""

    MAX_AGE = 1.0  # seconds an oldest-undelivered reading serves

    def __init__(self) -> None:
        self._db: Database | None = None  # the database of the reading kept
        self._read_at: datetime | None = None
        self._oldest: Metric | None = None
        self._reading: asyncio.Task[Metric | None] | None = None

    async def body(self, db: Database) -> bytes:
        """Every process's metrics, and the oldest undelivered event's age in `db`."""
        oldest = await self._oldest_undelivered(db)
        metrics.flush_requests()  # here, in the event loop's thread: the tally is its own
        # reads files in multiprocess mode
        return await asyncio.to_thread(metrics.exposition, [oldest] if oldest is not None else [])

    async def _oldest_undelivered(self, db: Database) -> Metric | None:
        read_at = self._read_at
        fresh = read_at is not None and timedelta(0) <= clock.now() - read_at < timedelta(seconds=self.MAX_AGE)
        if fresh and db is self._db:
            return self._oldest
        if self._reading is None:
            self._reading = asyncio.create_task(self._read(db))
        reading = self._reading
        try:
            return await asyncio.shield(reading)
        finally:
            if self._reading is reading and reading.done():
                self._reading = None

    async def _read(self, db: Database) -> Metric | None:
        try:
            async with asyncio.timeout(readiness.TIMEOUT):
                async with db.transaction(write=False) as session:
                    self._oldest = metrics.oldest_undelivered(await oldest_undelivered_age(session))
        except DependencyUnavailable:
            self._oldest = None  # logged once per outage; the other metrics still go out
        except Exception as exc:
            log.warning("metrics_database_failed", error=type(exc).__name__)
            self._oldest = None
        self._db, self._read_at = db, clock.now()
        return self._oldest


def install(app: FastAPI, metrics_path: str) -> None:
    """`/v1/ready`, and the metrics page at COMPTOIR_METRICS_PATH unless it is off; a client
    the page does not allow gets the 404 of an unknown URL."""
    app.include_router(router, prefix="/v1")
    if not metrics_path:
        return
    page = MetricsPage()

    async def metrics_page(request: Request) -> Response:
        state = app_state(request)
        if not allowed(state.settings, peer_of(request.scope)):
            raise RoutingError(request.method, request.url.path)
        return Response(await page.body(state.db), media_type=metrics.CONTENT_TYPE_LATEST)

    app.add_api_route(metrics_path, metrics_page, methods=["GET"], include_in_schema=False)


async def serve_alone(settings: Settings, db: Database, host: str, port: int) -> Callable[[], Awaitable[None]]:
    """The metrics page on a port of its own, for a process that serves no API (`comptoir
    worker --metrics-port`): COMPTOIR_METRICS_PATH answers it, any other path is a 404.
    Returns the function that stops it."""
    from aiohttp import web

    page = MetricsPage()
    path = settings.metrics_path or "/metrics"

    async def answer(request: web.Request) -> web.Response:
        if request.path.rstrip("/") != path or not allowed(settings, request.remote):
            return web.Response(status=404, text="Not found")
        return web.Response(body=await page.body(db), headers={"Content-Type": metrics.CONTENT_TYPE_LATEST})

    app = web.Application()
    app.router.add_get("/{tail:.*}", answer)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner.cleanup
