"""docs/operations.md "Images": the same API on both image stores (the database, files under
COMPTOIR_IMAGE_DIRECTORY), moves between them, and the removal of files, on both databases."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from comptoir.catalogs import images
from comptoir.catalogs.image_files import ImageKey
from comptoir.config import Settings
from comptoir.kit import clock, ids
from comptoir.models import CatalogImage, ImageData
from tests.api.catalogs.conftest import create
from tests.api.catalogs.test_images import GIF, JPEG, PNG, upload
from tests.api.conftest import Shop
from tests.factories import World


@pytest.fixture(params=["database", "filesystem"])
def store(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    made = tmp_path / "images"
    made.mkdir(mode=0o700)
    return made


@pytest.fixture
def settings(settings: Settings, store: str, directory: Path) -> Iterator[Settings]:
    yield settings.model_copy(update={"image_directory": directory if store == "filesystem" else None})
    images.use_directory(None)


@pytest.fixture
async def catalog(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return (await create(client, shop, {"name": "Carte"})).json()


def files_in(directory: Path) -> list[Path]:
    return sorted(path for path in directory.rglob("*") if path.is_file())


def file_of(directory: Path, image: dict[str, Any]) -> Path:
    pk = ids.decode("image", image["id"])
    assert pk is not None
    return directory / f"{pk % 256:02x}" / f"{pk}-{image['md5']}"


async def counts(world: World) -> tuple[int, int]:
    """(image rows, image_data rows)."""
    async with world.db.transaction(write=False) as session:
        return (
            await session.scalar(select(func.count()).select_from(CatalogImage)) or 0,
            await session.scalar(select(func.count()).select_from(ImageData)) or 0,
        )


async def read_all(client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]) -> list[tuple[str, bytes, str]]:
    auth = {"X-Access-Token": shop.account_token}
    base = f"/v1/catalogs/{catalog['id']}/images"
    listed = (await client.get(base, headers=auth)).json()
    read = []
    for image in listed:
        data = await client.get(f"{base}/{image['id']}/data", headers=auth)
        assert data.status_code == 200, data.text
        assert hashlib.md5(data.content, usedforsecurity=False).hexdigest() == image["md5"]
        read.append((image["id"], data.content, data.headers["content-type"]))
    return read


async def test_an_image_round_trips_on_either_store(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any], store: str, directory: Path
) -> None:
    made = (await upload(client, shop, catalog, PNG, "image/png")).json()
    auth = {"X-Access-Token": shop.account_token}
    base = f"/v1/catalogs/{catalog['id']}/images"
    assert (await client.get(base, headers=auth)).json() == [made]
    assert (await client.get(f"{base}/{made['id']}", headers=auth)).json() == made
    data = await client.get(f"{base}/{made['id']}/data", headers=auth)
    assert (data.status_code, data.content, data.headers["content-type"]) == (200, PNG, "image/png")
    if store == "filesystem":
        path = file_of(directory, made)
        assert files_in(directory) == [path]
        assert path.read_bytes() == PNG
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert await counts(world) == (1, 0)
    else:
        assert files_in(directory) == []
        assert await counts(world) == (1, 1)


async def test_removing_an_unused_image_removes_its_file(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any], store: str, directory: Path
) -> None:
    clock.freeze(datetime(2026, 6, 1, tzinfo=UTC))
    made = (await upload(client, shop, catalog, GIF, "image/gif")).json()
    clock.freeze(datetime(2026, 7, 1, tzinfo=UTC))
    assert await images.remove_unused(world.db) == 1
    assert files_in(directory) == []
    assert await counts(world) == (0, 0)
    auth = {"X-Access-Token": shop.account_token}
    data = await client.get(f"/v1/catalogs/{catalog['id']}/images/{made['id']}/data", headers=auth)
    assert data.status_code == 404


def age(path: Path, seconds: float) -> None:
    then = path.stat().st_mtime - seconds
    os.utime(path, (then, then))


async def test_the_sweep_removes_files_no_row_names_once_an_hour_old(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any], directory: Path, store: str
) -> None:
    if store == "database":
        assert await images.sweep_files(world.db) == 0
        return
    kept = (await upload(client, shop, catalog, PNG, "image/png")).json()
    assert images.STORES.files is not None
    # a rolled-back upload's file (no row), a crash's temporary file, and a fresh orphan
    await images.STORES.files.put(None, ImageKey(10**9, "0" * 32), JPEG)
    temporary = directory / "00" / ".tmp-1-abc"
    temporary.write_bytes(b"x")
    old_orphan = directory / f"{10**9 % 256:02x}" / f"{10**9}-{'0' * 32}"
    for path in (old_orphan, temporary, file_of(directory, kept)):
        age(path, 3601)
    await images.STORES.files.put(None, ImageKey(10**9 + 1, "1" * 32), JPEG)
    fresh = directory / f"{(10**9 + 1) % 256:02x}" / f"{10**9 + 1}-{'1' * 32}"
    assert await images.sweep_files(world.db) == 2
    assert files_in(directory) == sorted([file_of(directory, kept), fresh])


async def test_a_deleted_catalogs_files_go_with_the_sweep(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any], directory: Path, store: str
) -> None:
    made = (await upload(client, shop, catalog, PNG, "image/png")).json()
    deleted = await client.delete(f"/v1/catalogs/{catalog['id']}", headers={"X-Access-Token": shop.account_token})
    assert deleted.status_code == 200, deleted.text
    if store == "filesystem":
        age(file_of(directory, made), 3601)
    assert await images.sweep_files(world.db) == (1 if store == "filesystem" else 0)
    assert files_in(directory) == []


@pytest.mark.parametrize("store", ["database"])  # the process starts on the database
async def test_moving_to_files_and_back_keeps_every_image(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any], directory: Path, store: str
) -> None:
    for data, kind in ((PNG, "image/png"), (GIF, "image/gif"), (JPEG, "image/jpeg")):
        assert (await upload(client, shop, catalog, data, kind)).status_code == 200
    before = await read_all(client, shop, catalog)
    images.use_directory(directory)  # what `comptoir images move` does with the variable set
    assert await images.move_images(world.db, "filesystem", batch=2) == 3
    assert len(files_in(directory)) == 3
    assert await counts(world) == (3, 0)
    assert await read_all(client, shop, catalog) == before
    assert await images.move_images(world.db, "filesystem", batch=2) == 0  # idempotent
    assert await images.move_images(world.db, "database", batch=2) == 3
    assert files_in(directory) == []
    assert await counts(world) == (3, 3)
    images.use_directory(None)
    assert await read_all(client, shop, catalog) == before


@pytest.mark.parametrize("store", ["database"])
async def test_a_read_during_a_move_finds_the_bytes_in_the_other_store(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any], directory: Path, store: str
) -> None:
    made = (await upload(client, shop, catalog, PNG, "image/png")).json()
    images.use_directory(directory)
    assert await images.move_images(world.db, "filesystem") == 1
    # a reader whose row still names the database (read before the move committed)
    async with world.db.transaction(write=False) as session:
        row = await session.get_one(CatalogImage, ids.decode("image", made["id"]))
        assert row.store == "filesystem"
        before_the_move = CatalogImage(id=row.id, md5=row.md5, store="database")  # not added to the session
        assert await images.read_bytes(session, before_the_move) == PNG


@pytest.mark.parametrize("store", ["filesystem"])
async def test_a_missing_file_is_a_404_and_logged(
    client: httpx.AsyncClient,
    shop: Shop,
    catalog: dict[str, Any],
    directory: Path,
    store: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    made = (await upload(client, shop, catalog, PNG, "image/png")).json()
    file_of(directory, made).unlink()
    data = await client.get(
        f"/v1/catalogs/{catalog['id']}/images/{made['id']}/data", headers={"X-Access-Token": shop.account_token}
    )
    assert data.status_code == 404
    assert data.json()["error_type"] == "not_found"
    logged = capsys.readouterr()
    assert "image_bytes_missing" in logged.out + logged.err


@pytest.mark.parametrize("store", ["filesystem"])  # the process starts on files
async def test_going_back_to_the_database_keeps_every_image_readable_throughout(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any], directory: Path, store: str
) -> None:
    assert (await upload(client, shop, catalog, PNG, "image/png")).status_code == 200
    # restarted with COMPTOIR_IMAGE_STORE=database, the directory still set
    images.use_directory(directory, to_files=False)
    assert (await upload(client, shop, catalog, GIF, "image/gif")).status_code == 200
    assert len(files_in(directory)) == 1  # the new image went to the database
    assert await counts(world) == (2, 1)
    before = [(kind, data) for _id, data, kind in await read_all(client, shop, catalog)]
    assert sorted(before) == [("image/gif", GIF), ("image/png", PNG)]
    assert await images.move_images(world.db, "database") == 1
    assert files_in(directory) == []
    assert await counts(world) == (2, 2)
    images.use_directory(None)  # then the directory unset
    assert [(kind, data) for _id, data, kind in await read_all(client, shop, catalog)] == before
