"""docs/operations.md "Images": `comptoir images move --to filesystem|database` moves every
image's bytes, a batch a transaction, prints {"moved": N}, and a second run moves nothing."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from comptoir.catalogs import images, repository
from comptoir.catalogs.image_files import ImageKey
from comptoir.config import Settings
from comptoir.db.engine import create_database
from comptoir.kit import clock
from comptoir.models import CatalogImage, ImageData
from tests.api.catalogs.test_images import GIF, JPEG, PNG
from tests.cli.conftest import Result, refused
from tests.conftest import SECRET_KEY
from tests.factories import World

Cli = Callable[..., Result]
BYTES = [PNG, GIF, JPEG]


@pytest.fixture(autouse=True)
def _database_store() -> Iterator[None]:
    yield
    images.use_directory(None)


def seed(database_url: str) -> dict[int, bytes]:
    """Three images in the database store, by id."""

    async def build() -> dict[int, bytes]:
        settings = Settings(database_url=database_url, secret_key=SECRET_KEY)
        db = create_database(settings, pool_size=1)
        world = World(db, settings.server_key())
        try:
            catalog = await world.catalog(location=await world.location())
            made = {}
            async with db.transaction() as session:
                for data in BYTES:
                    md5 = hashlib.md5(data, usedforsecurity=False).hexdigest()
                    image = CatalogImage(catalog_id=catalog.id, type="image/png", size=len(data), md5=md5)
                    image.created_at = clock.now()
                    await repository.insert_image(session, image)
                    await images.STORES.database.put(session, ImageKey(image.id, md5), data)
                    made[image.id] = data
            return made
        finally:
            await db.dispose()

    return asyncio.run(build())


def stored(database_url: str) -> tuple[dict[int, str], dict[int, bytes]]:
    """Each image's store, and the bytes in `image_data`."""

    async def read() -> tuple[dict[int, str], dict[int, bytes]]:
        db = create_database(Settings(database_url=database_url, secret_key=SECRET_KEY), pool_size=1)
        try:
            async with db.transaction(write=False) as session:
                rows = (await session.execute(select(CatalogImage.id, CatalogImage.store))).all()
                data = (await session.execute(select(ImageData.image_id, ImageData.data))).all()
                return {row[0]: row[1] for row in rows}, {row[0]: row[1] for row in data}
        finally:
            await db.dispose()

    return asyncio.run(read())


def files(directory: Path) -> dict[int, bytes]:
    return {int(path.name.split("-")[0]): path.read_bytes() for path in directory.glob("*/*")}


def test_images_move_to_files_and_back(
    cli: Cli, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = seed(database_url)
    monkeypatch.setenv("COMPTOIR_IMAGE_DIRECTORY", str(tmp_path))
    assert cli("images", "move", "--to", "filesystem", "--batch", "2").json == {"moved": 3}
    assert stored(database_url) == (dict.fromkeys(made, "filesystem"), {})
    assert files(tmp_path) == made
    assert cli("images", "move", "--to", "filesystem").json == {"moved": 0}  # nothing left: a rerun is harmless
    assert cli("images", "move", "--to", "database", "--batch", "2").json == {"moved": 3}
    assert stored(database_url) == (dict.fromkeys(made, "database"), made)
    assert files(tmp_path) == {}
    assert cli("images", "move", "--to", "database").json == {"moved": 0}


def test_images_move_needs_the_directory(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPTOIR_IMAGE_DIRECTORY", raising=False)
    refused(
        cli("images", "move", "--to", "filesystem"),
        "COMPTOIR_IMAGE_DIRECTORY is not set: moving images to the filesystem needs the directory of the files",
    )
