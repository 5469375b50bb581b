"""`comptoir sandbox --seed FILE` and `comptoir sandbox reset` (docs/sandbox.md)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import click

from comptoir.cli import eventloop
from comptoir.cli.commands import CommandError, _emit, cli
from comptoir.kit import gcpause


@cli.group(invoke_without_command=True)
@click.option("--seed", "seed_path", type=click.Path(path_type=Path), help="The seed file (JSON).")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="0: any free port.")
@click.option("--database", help="A database URL; default: a temporary SQLite file.")
@click.pass_context
def sandbox(ctx: click.Context, seed_path: Path | None, host: str, port: int, database: str | None) -> None:
    """Serve a sandbox for integrators' tests: a fresh database loaded from the seed file,
    reset by POST /sandbox/reset. Prints one JSON line once ready: what the seed made."""
    if ctx.invoked_subcommand is not None:
        return
    if seed_path is None:
        raise click.UsageError("--seed FILE is required")
    with gcpause.paused():  # docs/performance.md "Start-up"
        from comptoir.config import Settings
        from comptoir.observe.logs import configure_logging
        from comptoir.sandbox.seed import SeedError, read_seed
        from comptoir.sandbox.service import SandboxRefused

    try:
        settings = Settings()
    except ValueError as exc:
        raise CommandError(" ".join(str(exc).split())) from None
    configure_logging(settings)
    try:
        with gcpause.paused():
            seed = read_seed(seed_path)  # before anything is made
        eventloop.run(_serve(settings, seed, host, port, database))
    except (SeedError, SandboxRefused) as exc:
        raise CommandError(str(exc)) from None


async def _serve(settings: Any, seed: Any, host: str, port: int, database: str | None) -> None:
    with gcpause.starting():  # docs/performance.md "Start-up"
        import uvicorn

        from comptoir.app import create_app
        from comptoir.observe.logs import logging_config
        from comptoir.sandbox.service import start

        sandbox, _key = await start(settings, seed, database)
    try:
        # the app's worker and the processes it reads settings from see the sandbox's
        os.environ["COMPTOIR_CALLBACK_ALLOWED_NETWORKS"] = sandbox.settings.callback_allowed_networks
        app = create_app(sandbox.settings, database=sandbox.db, sandbox=sandbox)
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            http="comptoir.http.protocol:ComptoirHttpProtocol",
            access_log=False,
            log_config=logging_config(sandbox.settings),
            log_level=sandbox.settings.log_level,
            proxy_headers=False,
            server_header=False,
        )
        server = uvicorn.Server(config)
        # uvicorn raises the signal that stopped it again once it has stopped, to the handler
        # found before it: the default one would end the process before `close()` removes the
        # temporary database. These let it return instead.
        for stop in (signal.SIGTERM, signal.SIGINT):
            signal.signal(stop, _stopped)
        serving = asyncio.create_task(server.serve())
        while not server.started:
            if serving.done():  # the port is taken, or the app refused to start
                await serving
                raise CommandError(f"could not serve on {host}:{port}")
            await asyncio.sleep(0.01)
        bound = server.servers[0].sockets[0].getsockname()[1]
        _emit({"url": f"http://{host}:{bound}"} | sandbox.answer)
        await serving
    finally:
        await sandbox.close()


def _stopped(_signal: int, _frame: FrameType | None) -> None:
    """A stop signal raised again by uvicorn once stopped: the sandbox then closes and exits."""


@sandbox.command("reset")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
def reset_command(host: str, port: int) -> None:
    """Reset the sandbox serving on --host:--port to its seeded state; prints what the seed made."""
    import httpx

    try:
        answer = httpx.post(f"http://{host}:{port}/sandbox/reset", timeout=30)
    except httpx.HTTPError as exc:
        raise CommandError(f"no sandbox answers on {host}:{port} ({exc})") from None
    if answer.status_code != 200:
        raise CommandError(f"{host}:{port} answered {answer.status_code}: is it a sandbox?")
    sys.stdout.write(answer.text.strip() + "\n")
