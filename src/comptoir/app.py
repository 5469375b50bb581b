"""create_app(settings): the FastAPI application with its routers, middleware, error
handlers and lifespan. The API lives at /v1, the authorisation server at /oauth2/v1, web
pages at /."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import structlog
from fastapi import APIRouter, FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts.endpoints import router as accounts_router
from comptoir.auth.request_context import context_of
from comptoir.callbacks import openapi as callbacks_openapi
from comptoir.callbacks.endpoints import router as callbacks_router
from comptoir.callbacks.stream import Streams
from comptoir.callbacks.worker import DeliveryWorker
from comptoir.catalogs import images
from comptoir.catalogs.endpoints import router as catalogs_router
from comptoir.config import Settings
from comptoir.customer_lists.endpoints import router as customer_lists_router
from comptoir.customers.endpoints import router as customers_router
from comptoir.db.connection_cache import ConnectionCache
from comptoir.db.direct import FastReader
from comptoir.db.engine import Database, create_database
from comptoir.db.server_key import load_data_key
from comptoir.deliveries.endpoints import router as deliveries_router
from comptoir.errors import BadRequest, ComptoirError, DependencyUnavailable, RoutingError, validation_error
from comptoir.events.wakeup import Wakeup
from comptoir.http import openapi
from comptoir.http.dispatch import index_routes
from comptoir.http.forwarded import TrustedProxies
from comptoir.http.inputs import InputLimits
from comptoir.http.middleware import HttpConventions
from comptoir.http.reference import router as reference_router
from comptoir.http.routing import JSON, ComptoirRoute, ErrorResponse, operation_id
from comptoir.http.state import AppState, app_state
from comptoir.jobs.timed import Retention, TimedJobs
from comptoir.kit import gcpause, metrics, tracing
from comptoir.locations.endpoints import router as locations_router
from comptoir.loyalty.endpoints import router as loyalty_router
from comptoir.oauth2 import openapi as oauth2_openapi
from comptoir.oauth2.endpoints import router as oauth2_router
from comptoir.oauth2.metadata import router as oauth2_metadata_router
from comptoir.observe import endpoints as observe_endpoints
from comptoir.orders.endpoints import router as orders_router
from comptoir.orders.service import join_customers
from comptoir.ratelimit import RateLimiter
from comptoir.ratelimit.memory import MemoryBackend
from comptoir.request_logs.buffer import RequestLogBuffer
from comptoir.users.endpoints import router as users_router
from comptoir.web.board import router as board_router
from comptoir.web.board_stream import Boards
from comptoir.web.catalogs import router as catalog_pages_router
from comptoir.web.connections import router as connections_pages_router
from comptoir.web.customers import router as customer_pages_router
from comptoir.web.developers import router as developers_router
from comptoir.web.location import router as location_pages_router
from comptoir.web.orders import router as orders_pages_router
from comptoir.web.pages import router as back_office_router
from comptoir.web.render import PageAnswer, is_api_path, unavailable_page, unknown_page
from comptoir.web.render import answer as page_answer_response
from comptoir.web.stock import router as stock_pages_router

log = structlog.get_logger("comptoir.app")

API_DESCRIPTION = """Comptoir's integration API: orders, catalogs, customers, loyalty, deliveries and
locations shared by the applications of restaurants and shops. Every request carries the access
token obtained through OAuth 2.0 at `/oauth2/v1`, in `X-Access-Token` (or `Authorization: Bearer`).
The rules behind each operation are in the repository's docs/api pages; changes reach an
application as the callbacks listed under Webhooks."""

if TYPE_CHECKING:  # imported by `comptoir sandbox` alone
    from comptoir.sandbox.service import Sandbox


def build_limiter(settings: Settings) -> RateLimiter:
    if settings.redis_url:
        from comptoir.ratelimit.redis import RedisBackend

        backend: Any = RedisBackend(settings.redis_url, timeout=settings.redis_timeout_seconds)
    else:
        backend = MemoryBackend()
    return RateLimiter(backend, enabled=settings.rate_limits == "on", prefix=settings.redis_prefix)


def create_app(
    settings: Settings, *, database: Database | None = None, background: bool = True, sandbox: Sandbox | None = None
) -> FastAPI:
    """The application. `background` runs the timed jobs and, unless COMPTOIR_RUN_WORKER=0
    (`serve --no-worker`), a callback delivery worker inside the process. `sandbox` (a
    `comptoir.sandbox.service.Sandbox`, given by `comptoir sandbox` alone) adds the sandbox's
    routes (docs/sandbox.md)."""
    images_problem = settings.image_directory_problem()  # docs/operations.md "Images"
    if images_problem is not None:
        raise RuntimeError(images_problem)
    images.use_directory(settings.image_directory, to_files=settings.images_to_files)
    join_customers()  # anonymising a customer anonymises its orders (comptoir.customers.hooks)
    owns_database = database is None
    db = database or create_database(settings)
    state = AppState(
        settings=settings,
        db=db,
        key=settings.server_key(),  # the data key replaces it at start (below)
        limiter=build_limiter(settings),
        fast=FastReader(settings),
        cache=ConnectionCache(settings),
        request_log=RequestLogBuffer(db, enabled=settings.request_logs == "on"),
        proxies=TrustedProxies(settings.trusted_proxies),
        wakeup=Wakeup(settings, is_sqlite=db.is_sqlite),
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            await db.load_id_key()  # before any id is made (kit.ids)
            # once per process: every secret is derived from the data key (docs/operations.md "Server key")
            state.key = await load_data_key(db, settings.server_key())
        except BaseException:  # refused to start (a key this database does not accept)
            await state.fast.close()
            if owns_database:
                await db.dispose()
            raise
        jobs = TimedJobs(db, settings.timed_jobs_interval_seconds, Retention.of(settings))
        # a sandbox keeps what each POST sent and received (docs/sandbox.md "Deliveries")
        observe = sandbox.deliveries.record if sandbox is not None else None
        worker = (
            DeliveryWorker(settings, db, state.key, reader=state.fast, observe=observe)
            if background and settings.run_worker
            else None
        )
        if sandbox is not None:
            sandbox.worker = worker  # poked when the sandbox's clock moves
        worker_task = asyncio.create_task(worker.run(), name="comptoir-callbacks") if worker else None
        state.request_log.start()
        lag = asyncio.create_task(metrics.watch_loop_lag(), name="comptoir-loop-lag")
        if background:
            await state.cache.start(state.fast)
            jobs.start()
            # Everything loaded so far (modules, routes, compiled statements) lives as long
            # as the process: out of the collector's sight, a full collection walks only
            # what requests create. Without it, one list of 100 orders in 50 paid for a
            # ~100 ms pause (p99 170 ms instead of 34 ms, benchmarks/orders.py).
            gcpause.tune_for_serving()
        try:
            yield
        finally:
            lag.cancel()
            metrics.process_exited()  # docs/operations.md "Metrics": multiprocess mode
            await jobs.stop()
            await state.request_log.stop()
            if worker is not None and worker_task is not None:
                worker.stop()
                await worker_task
            if isinstance(state.streams, Streams):
                await state.streams.close()
            if isinstance(state.boards, Boards):
                await state.boards.close()
            await state.wakeup.close()
            await state.limiter.close()
            await state.cache.stop()
            await state.fast.close()
            if owns_database:
                await db.dispose()
            tracing.flush()

    app = FastAPI(
        title="Comptoir integration API",
        version="1",
        description=API_DESCRIPTION,
        openapi_url="/v1/openapi.json",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        default_response_class=JSON,
        generate_unique_id_function=operation_id,
        telemetry=tracing.fastapi_telemetry(),  # the server span (docs/operations.md "Traces")
    )
    app.state.comptoir = state

    service = APIRouter(route_class=ComptoirRoute)

    @service.get("/health", include_in_schema=False)
    async def health() -> Response:
        """Liveness: no token, no database."""
        return JSON({"status": "ok"})

    # Each request walks the routers in this order until one matches (no two match one
    # path): the busiest first.
    routers = (
        service, orders_router, deliveries_router, catalogs_router, customers_router, loyalty_router,
        customer_lists_router, locations_router, accounts_router, users_router, callbacks_router,
    )  # fmt: skip
    for router in routers:
        app.include_router(router, prefix="/v1")

    observe_endpoints.install(app, settings.metrics_path)  # /v1/ready, metrics
    app.include_router(oauth2_router, prefix="/oauth2/v1")
    app.include_router(oauth2_metadata_router)
    app.include_router(reference_router)
    openapi.install(
        app, paths=oauth2_openapi.PATHS, schemas=oauth2_openapi.SCHEMAS, webhooks=callbacks_openapi.webhooks()
    )

    app.include_router(back_office_router)
    app.include_router(location_pages_router)
    app.include_router(catalog_pages_router)
    app.include_router(stock_pages_router)
    app.include_router(customer_pages_router)
    app.include_router(orders_pages_router)
    app.include_router(board_router)
    app.include_router(connections_pages_router)
    app.include_router(developers_router)
    if sandbox is not None:
        from comptoir.sandbox.endpoints import router as sandbox_router

        app.state.sandbox = sandbox
        app.include_router(sandbox_router)

    install_error_handlers(app)
    index_routes(app)  # after every router: http/dispatch.py
    app.add_middleware(InputLimits)
    app.add_middleware(HttpConventions)
    return app


def app_from_environment() -> FastAPI:
    """The app uvicorn builds in each `serve` process, from COMPTOIR_* variables."""
    from comptoir.observe.logs import configure_logging

    settings = Settings()
    configure_logging(settings)
    tracing.configure_from_environment()
    return create_app(settings)


# --- errors (spec 7, docs/api/conventions.md "Errors") ----------------------------------


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ComptoirError)
    async def comptoir_error(request: Request, exc: ComptoirError) -> Response:
        if isinstance(exc, DependencyUnavailable) and not is_api_path(
            request.url.path, app_state(request).settings.metrics_path
        ):
            return unavailable_page(exc)  # a person in the back office reads a page
        return ErrorResponse(exc)

    @app.exception_handler(RequestValidationError)
    async def request_validation_error(request: Request, exc: RequestValidationError) -> Response:
        return ErrorResponse(context_of(request).body_error or validation_error(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if isinstance(exc.__cause__, ComptoirError):  # raised while FastAPI read a form (413)
            return ErrorResponse(exc.__cause__)
        if exc.status_code in (404, 405):
            if not is_api_path(request.url.path, app_state(request).settings.metrics_path):
                try:
                    return await unknown_page(request, exc.status_code)  # docs/back-office.md: an HTML page
                except DependencyUnavailable as down:  # its navigation reads the database
                    return await comptoir_error(request, down)
            return ErrorResponse(RoutingError(request.method, request.url.path))
        return ErrorResponse(BadRequest(str(exc.detail)))

    @app.exception_handler(PageAnswer)
    async def page_answer(request: Request, exc: PageAnswer) -> Response:
        return page_answer_response(request, exc)

    # Every error these answer is framed by `ErrorResponse` (`errors.framed`: the error's own
    # headers with it). An error raised where none of them answers is framed by
    # HttpConventions, the same way, and an unexpected exception is its 500, logged there.
