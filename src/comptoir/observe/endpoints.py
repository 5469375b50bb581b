"""`GET /v1/ready` and the Prometheus metrics page (docs/operations.md "Health and
readiness", "Metrics"). Neither takes a token; neither shows an address, a secret or a
tenant's data."""

from __future__ import annotations

import asyncio
import ipaddress

import structlog
from fastapi import APIRouter, FastAPI
from starlette.requests import Request
from starlette.responses import Response

from comptoir.callbacks.service import oldest_undelivered_age
from comptoir.errors import NotReady, RoutingError
from comptoir.http.routing import JSON, ComptoirRoute
from comptoir.http.state import app_state
from comptoir.kit import metrics
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


def _allowed(request: Request) -> bool:
    networks = app_state(request).settings.metrics_networks
    if not networks:
        return True
    client = request.client
    try:
        address = ipaddress.ip_address(client.host) if client is not None else None
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # an IPv4 client of a server listening on "::"
    return address is not None and any(address in network for network in networks)


async def metrics_page(request: Request) -> Response:
    """Every process's metrics, and the age of the oldest undelivered event read now; a
    client outside COMPTOIR_METRICS_ALLOWED_NETWORKS gets the 404 of an unknown URL."""
    if not _allowed(request):
        raise RoutingError(request.method, request.url.path)
    state = app_state(request)
    scraped = []
    try:
        async with asyncio.timeout(readiness.TIMEOUT):
            async with state.db.transaction(write=False) as session:
                scraped.append(metrics.oldest_undelivered(await oldest_undelivered_age(session)))
    except Exception as exc:  # the database is down: the other metrics still go out
        log.warning("metrics_database_failed", error=type(exc).__name__)
    body = await asyncio.to_thread(metrics.exposition, scraped)  # reads files in multiprocess mode
    return Response(body, media_type=metrics.CONTENT_TYPE_LATEST)


def install(app: FastAPI, metrics_path: str) -> None:
    """`/v1/ready`, and the metrics page at COMPTOIR_METRICS_PATH unless it is off."""
    app.include_router(router, prefix="/v1")
    if metrics_path:
        app.add_api_route(metrics_path, metrics_page, methods=["GET"], include_in_schema=False)
