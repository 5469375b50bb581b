"""`comptoir admin callback-test|callback-resend|callback-replay|rotate-callback-secret`: the
webhook tools of a connection, found by its token (docs/operations.md "Commands"). Each
calls the service the API calls and prints one JSON object, like every admin command."""

from __future__ import annotations

import asyncio
from typing import Any

import click
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.cli.commands import CommandError, _emit, _run_in_transaction, _settings, admin


async def _connection_id(session: AsyncSession, key: bytes, token: str) -> int:
    from comptoir.connections.service import find_connection_by_token

    connection = await find_connection_by_token(session, key, token)
    if connection is None:
        raise CommandError("no connection has that token")
    return connection.id


@admin.command("callback-test")
@click.option("--token", required=True, help="The connection's access token.")
def callback_test(token: str) -> None:
    """POST a test event to the connection's callback URL now; print the outcome."""
    from comptoir.callbacks.service import send_test
    from comptoir.cli.demo import holds_demo, with_demo_networks
    from comptoir.db.engine import create_database
    from comptoir.db.server_key import load_data_key

    async def find(session: AsyncSession, key: bytes, _sqlite: bool) -> dict[str, Any]:
        return {"connection_id": await _connection_id(session, key, token), "demo": await holds_demo(session)}

    found = _run_in_transaction(find)  # migrated, and the token checked
    connection_id = found["connection_id"]
    # the addresses `serve` allows on this database (docs/api/callbacks-events.md "Allowed addresses")
    settings = with_demo_networks(_settings(), found["demo"])

    async def main() -> dict[str, Any]:
        db = create_database(settings, pool_size=2, statement_timeout=False)
        try:
            await db.load_id_key()
            return await send_test(db, await load_data_key(db, settings.server_key()), settings, connection_id)
        finally:
            await db.dispose()

    _emit(asyncio.run(main()))


@admin.command("callback-resend")
@click.option("--token", required=True, help="The connection's access token.")
@click.option("--event", "event_id", required=True, help="The event's id.")
def callback_resend(token: str, event_id: str) -> None:
    """Queue one event of the connection for a redelivery."""
    from comptoir.callbacks.service import resend

    async def work(session: AsyncSession, key: bytes, _sqlite: bool) -> dict[str, Any]:
        return await resend(session, await _connection_id(session, key, token), event_id)

    _emit(_run_in_transaction(work))


@admin.command("callback-replay")
@click.option("--token", required=True, help="The connection's access token.")
@click.option("--from", "start", required=True, help="ISO 8601 time (UTC without an offset).")
@click.option("--to", "end", required=True, help="ISO 8601 time, at most 31 days after --from.")
def callback_replay(token: str, start: str, end: str) -> None:
    """Queue the connection's events created from --from (included) to --to (excluded) for a
    redelivery, oldest first."""
    from comptoir.callbacks.service import replay

    async def work(session: AsyncSession, key: bytes, _sqlite: bool) -> dict[str, Any]:
        # an operator's command: not counted against the connection's rate limits
        return await replay(session, await _connection_id(session, key, token), start, end, charge=None)

    _emit(_run_in_transaction(work))


@admin.command("rotate-callback-secret")
@click.option("--token", required=True, help="The connection's access token.")
def rotate_callback_secret(token: str) -> None:
    """A new signing secret for the connection's callback (the previous one signs for 24 hours)."""
    from comptoir.callbacks.service import rotate_signing_secret

    async def work(session: AsyncSession, key: bytes, _sqlite: bool) -> dict[str, Any]:
        return await rotate_signing_secret(session, key, await _connection_id(session, key, token))

    _emit(_run_in_transaction(work))
