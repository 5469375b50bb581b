"""`comptoir images move --to filesystem|database`: moves catalog images' bytes between the
database and COMPTOIR_IMAGE_DIRECTORY a batch at a time, while they are served
(docs/operations.md "Images"). Prints one JSON object, like every command."""

from __future__ import annotations

import asyncio

import click

from comptoir.cli.commands import CommandError, _emit, _migrate_only, _run_in_transaction, _settings, cli


@cli.group("images")
def images_group() -> None:
    """Where catalog images' bytes are kept (docs/operations.md "Images")."""


@images_group.command("move")
@click.option("--to", "to", required=True, type=click.Choice(["filesystem", "database"]), help="The target store.")
@click.option("--batch", default=100, show_default=True, type=click.IntRange(1, 10_000), help="Images a transaction.")
def move(to: str, batch: int) -> None:
    """Move every image's bytes to the filesystem or back to the database; resumable (run it
    again after an interruption) and idempotent (a second run moves nothing). Prints
    {"moved": N}."""
    from comptoir.catalogs import images
    from comptoir.db.engine import create_database

    settings = _settings()  # refuses a directory that is missing or not writable
    if settings.image_directory is None:
        raise CommandError(
            f"COMPTOIR_IMAGE_DIRECTORY is not set: moving images to the {to} needs the directory of the files"
        )
    _run_in_transaction(_migrate_only)

    async def main() -> int:
        images.use_directory(settings.image_directory)
        db = create_database(settings, pool_size=2, statement_timeout=False)
        try:
            await db.load_id_key()
            return await images.move_images(db, to, batch=batch)
        finally:
            await db.dispose()

    _emit({"moved": asyncio.run(main())})
