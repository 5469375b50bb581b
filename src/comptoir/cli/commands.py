"""The `comptoir` command (docs/operations.md "Commands").

Every `admin` command and `demo` prints exactly one JSON object on stdout and exits 0; on bad
input it prints a one-line message on stderr, exits non-zero and changes nothing (each
command runs in one transaction). Logs go to stderr.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.cli import eventloop
from comptoir.config import ServerKeyError, Settings
from comptoir.errors import ComptoirError, Unprocessable
from comptoir.kit import gcpause


class CommandError(Exception):
    """Bad input to a command: shown as one line on stderr."""


def _settings() -> Settings:
    try:
        settings = Settings()
    except ValidationError as exc:  # refused before anything starts, naming the variable
        raise CommandError("; ".join(_setting_problem(error) for error in exc.errors())) from None
    except ValueError as exc:
        raise CommandError(" ".join(str(exc).split())) from None
    # every command that reads the settings uses the server key: refused before it touches
    # anything (docs/operations.md "Server key")
    key_problem = settings.server_key_problem()
    if key_problem is not None:
        raise CommandError(key_problem)
    images_problem = settings.image_directory_problem()  # docs/operations.md "Images"
    if images_problem is not None:
        raise CommandError(images_problem)
    return settings


def _setting_problem(error: ErrorDetails) -> str:
    """One refused setting in one line: its environment variable, what it must be, and what it
    was (never for a secret)."""
    message = " ".join(str(error["msg"]).removeprefix("Value error, ").split())
    if message.startswith("COMPTOIR_"):  # a validator that names the variable and the bad entry
        return message
    variable = "COMPTOIR_" + "_".join(str(part) for part in error["loc"]).upper()
    if "SECRET" in variable:  # never echoed
        return f"{variable}: {message}"
    return f"{variable}: {message} (got {str(error.get('input'))[:100]!r})"


def _one_line(error: BaseException) -> str:
    if isinstance(error, Unprocessable):
        return "; ".join(f"{e.field}: {e.message}" if e.field else e.message for e in error.errors)
    return " ".join(str(error).split())


def _emit(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _run_in_transaction(work: Callable[[AsyncSession, bytes, bool], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    """Migrate and run `work(session, key, is_sqlite)` in one transaction, so that a refused
    command changes nothing: not the data, not the schema, and no file it would have created
    (a new SQLite database, a new key file). `key` is the data key (db.server_key): a server
    key that opens none of the database's wraps is refused."""
    from comptoir.db.engine import create_database
    from comptoir.db.migrate import upgrade_in
    from comptoir.db.server_key import data_key_in

    settings = _settings()
    new_files = [path for path in _local_files(settings) if not path.exists()]

    async def main() -> dict[str, Any]:
        db = create_database(settings, pool_size=2, statement_timeout=False)
        try:
            async with db.transaction() as session:
                await upgrade_in(await session.connection())
                await db.load_id_key(session)  # before any id is made (kit.ids)
                _wrap, key = await data_key_in(session, settings.server_key())
                return await work(session, key, db.is_sqlite)
        finally:
            await db.dispose()

    try:
        return asyncio.run(main())
    except BaseException:
        for path in new_files:
            path.unlink(missing_ok=True)
        raise


def _local_files(settings: Settings) -> list[Path]:
    files = [] if settings.secret_key else [settings.key_file()]
    database = settings.sqlite_path
    if database is not None:
        files += [database, database.with_name(database.name + "-wal"), database.with_name(database.name + "-shm")]
    return files


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """Comptoir: an integration hub for restaurants and shops."""


# --- serve, migrate, demo -------------------------------------------------------------


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="Server processes on the port."
)
@click.option("--demo", is_flag=True, help="Ensure the demo data exist and print them first.")
@click.option("--no-worker", is_flag=True, help="Do not run a callback delivery worker in this process.")
def serve(host: str, port: int, workers: int, demo: bool, no_worker: bool) -> None:
    """Apply migrations, then serve the API at /v1, OAuth at /oauth2/v1, pages at /."""
    import uvicorn

    from comptoir.observe.logs import configure_logging, logging_config

    settings = _settings()
    configure_logging(settings)
    with gcpause.paused():  # docs/performance.md "Start-up"
        if demo:
            _emit(_run_in_transaction(_demo))
        demo_settings = _demo_settings(settings)  # and migrated
    if demo_settings is not settings:  # read by the processes serving the app
        os.environ["COMPTOIR_CALLBACK_ALLOWED_NETWORKS"] = demo_settings.callback_allowed_networks
    if no_worker:
        os.environ["COMPTOIR_RUN_WORKER"] = "0"
    _metrics_directory(workers)
    uvicorn.run(
        "comptoir.serving:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers if workers > 1 else None,
        # docs/operations.md "Slow clients and connections": header and body read timeouts,
        # and the connection cap of each process
        http="comptoir.http.protocol:ComptoirHttpProtocol",
        access_log=False,
        log_config=logging_config(settings),  # every line in COMPTOIR_LOG_FORMAT (docs/operations.md "Logs")
        log_level=settings.log_level,
        proxy_headers=False,
        server_header=False,
        # a worker loads the whole application before it answers the supervisor's health
        # check: uvicorn's 5 s killed and restarted workers of a busy host in a loop
        timeout_worker_healthcheck=30,
    )


def _metrics_directory(workers: int) -> None:
    """docs/operations.md "Metrics": with several workers, each writes its metrics to files in
    PROMETHEUS_MULTIPROC_DIR (emptied of a previous run's files), or in a fresh directory
    made here and removed at exit."""
    import atexit
    import glob
    import shutil
    import tempfile

    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        os.makedirs(given, exist_ok=True)
        for stale in glob.glob(os.path.join(given, "*.db")):
            os.remove(stale)
    elif workers > 1:
        made = tempfile.mkdtemp(prefix="comptoir-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = made  # the workers inherit it
        atexit.register(shutil.rmtree, made, True)


@cli.command()
@click.option(
    "--metrics-port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Serve this worker's Prometheus metrics on this port (at COMPTOIR_METRICS_PATH).",
)
@click.option("--metrics-host", default="127.0.0.1", show_default=True, help="The address --metrics-port listens on.")
def worker(metrics_port: int | None, metrics_host: str) -> None:
    """Run a callback delivery worker (and the timed jobs) until interrupted; any number may
    run beside any number of `serve` processes on one PostgreSQL."""
    import signal

    with gcpause.paused():  # docs/performance.md "Start-up"
        from comptoir.callbacks.worker import DeliveryWorker
        from comptoir.db.engine import create_database
        from comptoir.db.server_key import load_data_key
        from comptoir.jobs.timed import Retention, TimedJobs
        from comptoir.kit import metrics, tracing
        from comptoir.observe.endpoints import serve_alone
        from comptoir.observe.logs import configure_logging

        settings = _settings()
        configure_logging(settings)
        settings = _demo_settings(settings)  # and migrated
        tracing.configure_from_environment()  # docs/operations.md "Traces"

    async def main() -> None:
        from comptoir.catalogs import images

        # the timed jobs remove image files
        images.use_directory(settings.image_directory, to_files=settings.images_to_files)
        db = create_database(settings)
        await db.load_id_key()
        delivery = DeliveryWorker(settings, db, await load_data_key(db, settings.server_key()))
        jobs = TimedJobs(db, settings.timed_jobs_interval_seconds, Retention.of(settings))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, delivery.stop)
        jobs.start()
        lag = asyncio.create_task(metrics.watch_loop_lag())
        # docs/operations.md "Metrics": the worker's deliveries on a page of its own
        stop_page = await serve_alone(settings, db, metrics_host, metrics_port) if metrics_port else None
        try:
            await delivery.run()
        finally:
            if stop_page is not None:
                await stop_page()
            lag.cancel()
            metrics.process_exited()  # docs/operations.md "Metrics"
            await jobs.stop()
            await db.dispose()
            tracing.flush()

    eventloop.run(main())


async def _holds_demo(session: AsyncSession, _key: bytes, _is_sqlite: bool) -> dict[str, Any]:
    from comptoir.cli.demo import holds_demo

    return {"demo": await holds_demo(session)}


def _demo_settings(settings: Settings) -> Settings:
    """Migrate, then `settings` as a demo installation reads them, when the database holds
    the demo data (`cli.demo.with_demo_networks`)."""
    from comptoir.cli.demo import with_demo_networks

    return with_demo_networks(settings, _run_in_transaction(_holds_demo)["demo"])


async def _migrate_only(_session: AsyncSession, _key: bytes, _is_sqlite: bool) -> dict[str, Any]:
    from comptoir.db.migrate import alembic_head

    return {"migrated": True, "revision": alembic_head()}


@cli.command()
def migrate() -> None:
    """Apply migrations and exit."""
    _emit(_run_in_transaction(_migrate_only))


async def _demo(session: AsyncSession, key: bytes, is_sqlite: bool) -> dict[str, Any]:
    from comptoir.cli.demo import ensure_demo

    return await ensure_demo(session, key)


@cli.command()
def demo() -> None:
    """Ensure the demo data exist and print them (the same output every time)."""
    _emit(_run_in_transaction(_demo))


@cli.command("secret-key")
def secret_key() -> None:
    """Print a new random server key (64 hex characters) for COMPTOIR_SECRET_KEY.

    Make it once and give the same key to every process on every host (serve, worker,
    admin); it opens the data key tokens and client secrets are derived from (docs/operations.md
    "Server key").
    Reads no setting and touches nothing."""
    import secrets

    sys.stdout.write(secrets.token_hex(32) + "\n")


# --- admin ----------------------------------------------------------------------------


@cli.group()
def admin() -> None:
    """Operator commands: users, accounts, locations, clients, connections."""


@admin.command("create-user")
@click.option("--email", required=True)
@click.option("--password", required=True)
@click.option("--first-name")
@click.option("--last-name")
@click.option("--timezone", default="UTC", show_default=True)
@click.option("--locale", "locales", multiple=True, help="Repeatable; default en-GB.")
def create_user_command(
    email: str, password: str, first_name: str | None, last_name: str | None, timezone: str, locales: tuple[str, ...]
) -> None:
    """Create a user."""
    from comptoir.users.service import create_user

    async def work(session: AsyncSession, _key: bytes, _sqlite: bool) -> dict[str, Any]:
        user = await create_user(
            session,
            email=email,
            password=password,
            first_name=first_name,
            last_name=last_name,
            timezone=timezone,
            locales=list(locales),
        )
        return {"id": user.public_id, "email": user.email, "first_name": user.first_name, "last_name": user.last_name}

    _emit(_run_in_transaction(work))


@admin.command("create-account")
@click.option("--owner", required=True, help="Email of the owning user.")
@click.option("--name", required=True)
@click.option("--currency", required=True, help="ISO 4217 code, e.g. EUR.")
def create_account_command(owner: str, name: str, currency: str) -> None:
    """Create an account owned by a user."""
    from comptoir.accounts.service import create_account, render_account
    from comptoir.kit.codes import parse_currency
    from comptoir.users.service import find_user_by_email

    async def work(session: AsyncSession, _key: bytes, _sqlite: bool) -> dict[str, Any]:
        user = await find_user_by_email(session, owner)
        if user is None:
            raise CommandError(f"no user with email {owner!r}")
        return render_account(
            await create_account(session, owner=user, name=name, currency=_wire(parse_currency, currency, "--currency"))
        )

    _emit(_run_in_transaction(work))


@admin.command("create-location")
@click.option("--account", "account_id", required=True)
@click.option("--name", required=True)
@click.option("--timezone", help="IANA name; default: the country's main zone (Europe/Paris).")
@click.option("--country", help="ISO 3166-1 alpha-2; default: the timezone's country (FR).")
@click.option("--address")
@click.option("--postal-code")
@click.option("--city")
def create_location_command(
    account_id: str,
    name: str,
    timezone: str | None,
    country: str | None,
    address: str | None,
    postal_code: str | None,
    city: str | None,
) -> None:
    """Create a location of an account; prints it as GET /v1/locations/:id shows it."""
    from comptoir.accounts.service import find_account
    from comptoir.kit.codes import parse_country
    from comptoir.kit.times import country_of_timezone, main_timezone, parse_timezone_name
    from comptoir.locations.service import create_location, render_location

    async def work(session: AsyncSession, _key: bytes, _sqlite: bool) -> dict[str, Any]:
        account = await find_account(session, account_id)
        if account is None:
            raise CommandError(f"no account with id {account_id!r}")
        zone = _wire(parse_timezone_name, timezone, "--timezone") if timezone else None
        code = _wire(parse_country, country, "--country") if country else None
        code = code or (country_of_timezone(zone) if zone else None) or "FR"
        zone = zone or main_timezone(code)
        location = await create_location(
            session,
            account=account,
            name=name,
            timezone=zone,
            country=code,
            address=address,
            postal_code=postal_code,
            city=city,
        )
        return render_location(location, account)

    _emit(_run_in_transaction(work))


@admin.command("create-client")
@click.option("--name", required=True)
@click.option("--redirect-uri", "redirect_uris", multiple=True, help="Repeatable.")
@click.option("--owner", help="Email of the user whose Developers page shows and edits the client.")
def create_client_command(name: str, redirect_uris: tuple[str, ...], owner: str | None) -> None:
    """Register an OAuth client; prints its id and secret (and its owner's email with --owner)."""
    from comptoir.applications.service import create_client, render_client
    from comptoir.users.service import find_user_by_email

    async def work(session: AsyncSession, key: bytes, _sqlite: bool) -> dict[str, Any]:
        user = await find_user_by_email(session, owner) if owner is not None else None
        if owner is not None and user is None:
            raise CommandError(f"no user with email {owner}")
        client = await create_client(session, name=name, redirect_uris=list(redirect_uris), owner=user)
        return render_client(key, client) | ({"owner": user.email} if user is not None else {})

    _emit(_run_in_transaction(work))


@admin.command("connect")
@click.option("--client", "client_id", required=True)
@click.option("--user", "email", required=True, help="Email of the user who authorises.")
@click.option("--scope", required=True)
@click.option("--location", "location_id")
@click.option("--account", "account_id")
@click.option("--catalog", "catalog_id")
@click.option("--customer-list", "customer_list_id")
@click.option(
    "--name",
    default="",
    help="Forces a distinct token per name: a new name gives a new token, a name used before "
    "returns its earlier token (docs/api/oauth.md).",
)
def connect_command(
    client_id: str,
    email: str,
    scope: str,
    location_id: str | None,
    account_id: str | None,
    catalog_id: str | None,
    customer_list_id: str | None,
    name: str,
) -> None:
    """Connect a client as the browser flow would; prints the token response."""
    from comptoir.accounts.service import find_account
    from comptoir.applications.service import find_client
    from comptoir.auth.scopes import ScopeError, parse_scope
    from comptoir.connections.service import authorise
    from comptoir.db.engine import get_by_public_id
    from comptoir.locations.service import find_location
    from comptoir.models import Catalog, CustomerList
    from comptoir.users.service import find_user_by_email

    if location_id and account_id:
        raise CommandError("give --location or --account, not both")

    async def work(session: AsyncSession, key: bytes, _sqlite: bool) -> dict[str, Any]:
        try:
            parsed = parse_scope(scope)
        except ScopeError as exc:
            raise CommandError(f"invalid scope: {exc}") from None
        client = await find_client(session, client_id)
        if client is None:
            raise CommandError(f"no client with id {client_id!r}")
        user = await find_user_by_email(session, email)
        if user is None:
            raise CommandError(f"no user with email {email!r}")
        location = account = catalog = customer_list = None
        if location_id:
            found = await find_location(session, location_id)
            if found is None:
                raise CommandError(f"no location with id {location_id!r}")
            location = found[0]
        if account_id:
            account = await find_account(session, account_id)
            if account is None:
                raise CommandError(f"no account with id {account_id!r}")
        if catalog_id:
            catalog = await get_by_public_id(session, Catalog, catalog_id)
            if catalog is None:
                raise CommandError(f"no catalog with id {catalog_id!r}")
        if customer_list_id:
            customer_list = await get_by_public_id(session, CustomerList, customer_list_id)
            if customer_list is None:
                raise CommandError(f"no customer list with id {customer_list_id!r}")
        return await authorise(
            session,
            key,
            client=client,
            user=user,
            scope=parsed,
            location=location,
            account=account,
            catalog=catalog,
            customer_list=customer_list,
            name=name,
        )

    _emit(_run_in_transaction(work))


@admin.command("delivery-log")
@click.option("--token", required=True, help="The connection's access token.")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 1000))
def delivery_log(token: str, limit: int) -> None:
    """The connection's recent callback delivery attempts, newest first."""
    from comptoir.callbacks.service import render_delivery_log
    from comptoir.connections.service import find_connection_by_token

    async def work(session: AsyncSession, key: bytes, _sqlite: bool) -> dict[str, Any]:
        connection = await find_connection_by_token(session, key, token)
        if connection is None:
            raise CommandError("no connection has that token")
        return {"attempts": await render_delivery_log(session, connection.id, limit)}

    _emit(_run_in_transaction(work))


def _connection_flag(token: str, blocked: bool) -> None:
    from comptoir.connections.service import find_connection_by_token, set_blocked

    async def work(session: AsyncSession, key: bytes, _sqlite: bool) -> dict[str, Any]:
        connection = await find_connection_by_token(session, key, token)
        if connection is None:
            raise CommandError("no connection has that token")
        await set_blocked(session, connection, blocked)
        return {"blocked": blocked}

    _emit(_run_in_transaction(work))


@admin.command("block-connection")
@click.option("--token", required=True)
def block_connection(token: str) -> None:
    """Block a connection: its token gets 401 until unblocked."""
    _connection_flag(token, True)


@admin.command("unblock-connection")
@click.option("--token", required=True)
def unblock_connection(token: str) -> None:
    """Unblock a connection."""
    _connection_flag(token, False)


def _account_flag(account_id: str, suspended: bool) -> None:
    from comptoir.accounts.service import find_account, set_suspended

    async def work(session: AsyncSession, _key: bytes, _sqlite: bool) -> dict[str, Any]:
        account = await find_account(session, account_id)
        if account is None:
            raise CommandError(f"no account with id {account_id!r}")
        await set_suspended(session, account, suspended)
        return {"suspended": suspended}

    _emit(_run_in_transaction(work))


@admin.command("suspend-account")
@click.option("--account", "account_id", required=True)
def suspend_account(account_id: str) -> None:
    """Suspend an account for non payment: its tokens get 401."""
    _account_flag(account_id, True)


@admin.command("unsuspend-account")
@click.option("--account", "account_id", required=True)
def unsuspend_account(account_id: str) -> None:
    """Lift an account's suspension."""
    _account_flag(account_id, False)


# --- helpers --------------------------------------------------------------------------


def _wire(parse: Callable[[Any], Any], value: Any, option: str) -> Any:
    from comptoir.kit.wire import WireError

    try:
        return parse(value)
    except WireError as exc:
        raise CommandError(f"{option}: {exc}") from None


def main(argv: list[str] | None = None) -> None:
    """Entry point: one-line errors on stderr, non-zero exit, nothing changed."""
    try:
        cli.main(args=argv, prog_name="comptoir", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc), err=True)
        sys.exit(2)
    except click.ClickException as exc:
        sys.stderr.write(f"error: {' '.join(exc.format_message().split())}\n")
        sys.exit(exc.exit_code or 2)
    except click.exceptions.Abort:
        sys.stderr.write("error: aborted\n")
        sys.exit(1)
    except (CommandError, ComptoirError, ServerKeyError) as exc:
        sys.stderr.write(f"error: {_one_line(exc)}\n")
        sys.exit(1)
    except DBAPIError as exc:  # e.g. a concurrent command created the same user first
        first = str(exc.orig).strip().splitlines()[0] if exc.orig else type(exc).__name__
        sys.stderr.write(f"error: the database refused the change ({first})\n")
        sys.exit(1)
