"""`comptoir rotate-key`: change the server key without changing any secret derived from
the data key (docs/operations.md "Server key"). Prints one JSON object, like every admin
command; refused input changes nothing."""

from __future__ import annotations

import secrets
import sys
from typing import Any

import click
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.cli.commands import CommandError, _emit, _run_in_transaction, _settings, cli

NEW_KEY_UNSET = (
    "COMPTOIR_NEW_SECRET_KEY is not set: give the new server key there or on stdin with"
    " --new-key-stdin; make one with `comptoir secret-key`"
)


def _new_key(from_stdin: bool) -> bytes:
    settings = _settings()
    if from_stdin:
        given: str | None = sys.stdin.readline().strip()
        name = "the new key on stdin"
    else:
        given = settings.new_secret_key
        name = "COMPTOIR_NEW_SECRET_KEY"
    if not given:
        raise CommandError(NEW_KEY_UNSET if not from_stdin else "the new key on stdin is empty")
    problem = settings.key_length_problem(name, given, new=True)
    if problem is not None:
        raise CommandError(problem)
    return given.encode()


@cli.command("rotate-key")
@click.option("--new-key-stdin", is_flag=True, help="Read the new server key from stdin, not COMPTOIR_NEW_SECRET_KEY.")
@click.option("--retire-others", is_flag=True, help="Accept the current server key only; takes no new key.")
@click.option(
    "--new-data-key",
    is_flag=True,
    help="Also replace the data key, accepted under the new server key only: logs everyone out.",
)
def rotate_key(new_key_stdin: bool, retire_others: bool, new_data_key: bool) -> None:
    """Accept a new server key beside the current one (COMPTOIR_SECRET_KEY); prints the
    number of accepted keys. Restart every process with the new key, then run
    `rotate-key --retire-others` with it."""
    from comptoir.db.server_key import add_server_key, replace_data_key, retire_other_keys

    if retire_others and (new_key_stdin or new_data_key):
        raise CommandError("--retire-others takes no new key: run it with the new key as COMPTOIR_SECRET_KEY")
    current = _settings().server_key
    if retire_others:

        async def retire(session: AsyncSession, _key: bytes, _sqlite: bool) -> dict[str, Any]:
            return {"wraps": await retire_other_keys(session, current())}

        _emit(_run_in_transaction(retire))
        return
    new = _new_key(new_key_stdin)

    async def add(session: AsyncSession, _key: bytes, _sqlite: bool) -> dict[str, Any]:
        if new_data_key:
            return {"wraps": await replace_data_key(session, current(), new, secrets.token_hex(32).encode())}
        return {"wraps": await add_server_key(session, current(), new)}

    _emit(_run_in_transaction(add))
