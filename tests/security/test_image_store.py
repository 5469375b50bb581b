"""docs/operations.md "Images": the filesystem image store under attack. A directory that is
missing or not writable stops every command before it starts, naming the variable; refused
uploads write nothing to disk; another tenant's image ids read nothing; a file's path is
made of internal values only, so no id or name a client sends reaches the disk; a link planted
in a file's place is not followed."""

# ruff: noqa: F811 - the API's and the CLI's fixtures are imported, then named as parameters

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from comptoir.app import create_app
from comptoir.catalogs import images
from comptoir.catalogs.image_files import FilesystemImageStore, ImageKey
from comptoir.catalogs.images import MAX_BYTES
from comptoir.config import Settings
from comptoir.kit import ids
from tests.api.catalogs.conftest import create
from tests.api.catalogs.test_images import PNG, upload
from tests.api.conftest import ACCOUNT_SCOPE, Shop, app, client, shop, world  # noqa: F401 - the API's fixtures
from tests.cli.conftest import Result, cli, refused  # noqa: F401 - the CLI's fixture
from tests.factories import World

Cli = Callable[..., Result]


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    made = tmp_path / "images"
    made.mkdir(mode=0o700)
    return made


@pytest.fixture
def settings(settings: Settings, directory: Path) -> Iterator[Settings]:
    yield settings.model_copy(update={"image_directory": directory})
    images.use_directory(None)


@pytest.fixture
async def catalog(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return (await create(client, shop, {"name": "Carte"})).json()


def everything_in(directory: Path) -> list[Path]:
    return sorted(directory.rglob("*"))


# --- a directory that cannot serve -----------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{tmp}/absent", "COMPTOIR_IMAGE_DIRECTORY: {tmp}/absent is not an existing directory; create it (mode 0700)"),
        ("{tmp}/a-file", "COMPTOIR_IMAGE_DIRECTORY: {tmp}/a-file is not an existing directory; create it (mode 0700)"),
        ("images", "COMPTOIR_IMAGE_DIRECTORY must be an absolute path, not 'images'"),
    ],
)
def test_a_missing_directory_stops_every_command(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    (tmp_path / "a-file").write_bytes(b"")
    monkeypatch.setenv("COMPTOIR_IMAGE_DIRECTORY", value.format(tmp=tmp_path))
    for command in (
        ("migrate",),
        ("images", "move", "--to", "filesystem"),
        ("admin", "create-account", "--owner", "a@b.c", "--name", "N", "--currency", "EUR"),
    ):
        refused(cli(*command), message.format(tmp=tmp_path))


def test_a_directory_not_writable_stops_every_command(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPTOIR_IMAGE_DIRECTORY", "/proc")  # no process, root included, writes there
    result = cli("migrate")
    refused(result, result.err.removeprefix("error: ").rstrip("\n"))
    assert result.err.startswith("error: COMPTOIR_IMAGE_DIRECTORY: /proc is not writable by this process (")


@pytest.mark.parametrize("value", ["filesystem", "files", "s3"])
def test_an_image_store_without_its_directory_stops_every_command(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.delenv("COMPTOIR_IMAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("COMPTOIR_IMAGE_STORE", value)
    message = (
        "COMPTOIR_IMAGE_STORE=filesystem needs COMPTOIR_IMAGE_DIRECTORY: the directory of the files"
        if value == "filesystem"
        else f"COMPTOIR_IMAGE_STORE: Input should be 'auto', 'database' or 'filesystem' (got {value!r})"
    )
    for command in (("migrate",), ("images", "move", "--to", "database")):
        refused(cli(*command), message)


def test_a_server_process_with_a_missing_directory_is_refused(settings: Settings, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError) as stopped:
        create_app(settings.model_copy(update={"image_directory": tmp_path / "absent"}), background=False)
    assert str(stopped.value) == (
        f"COMPTOIR_IMAGE_DIRECTORY: {tmp_path / 'absent'} is not an existing directory; create it (mode 0700)"
    )


# --- refused uploads --------------------------------------------------------------------------


async def test_oversized_and_invalid_images_write_nothing_to_disk(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], directory: Path
) -> None:
    too_large = PNG + b"\x00" * (MAX_BYTES + 1 - len(PNG))
    assert (await upload(client, shop, catalog, too_large, "image/png")).status_code == 422
    assert (await upload(client, shop, catalog, b"<svg onload=alert(1)/>", "image/png")).status_code == 422
    assert (await upload(client, shop, catalog, PNG, "image/jpeg")).status_code == 422
    assert (await upload(client, shop, catalog, PNG, "image/svg+xml")).status_code == 415
    assert (await upload(client, shop, catalog, PNG, "image/png", "?private_ref=" + "x" * 500)).status_code == 422
    assert everything_in(directory) == []


# --- another tenant, traversal, links ---------------------------------------------------------


async def test_another_tenants_image_ids_read_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any], directory: Path
) -> None:
    made = (await upload(client, shop, catalog, PNG, "image/png")).json()
    other = await new_shop_of_another_owner(world)
    theirs = (await create(client, other, {"name": "Theirs"})).json()
    auth = {"X-Access-Token": other.account_token}
    through_theirs = await client.get(f"/v1/catalogs/{theirs['id']}/images/{made['id']}/data", headers=auth)
    assert through_theirs.status_code == 404
    through_ours = await client.get(f"/v1/catalogs/{catalog['id']}/images/{made['id']}/data", headers=auth)
    assert through_ours.status_code == 404
    assert PNG not in through_theirs.content + through_ours.content


async def new_shop_of_another_owner(world: World) -> Shop:
    owner = await world.user(email="mallory@example.com")
    account = await world.account(owner=owner, name="Mallory", currency="EUR")
    location = await world.location(account, name="Mallory Paris")
    token = await world.token(ACCOUNT_SCOPE, account=account)
    return Shop(account, location, location, token, token)


@pytest.mark.parametrize(
    "image_id", ["..%2F..%2F..%2Fetc%2Fpasswd", "%2E%2E", "00", "1-" + "0" * 32, "..", "%00", "-1"]
)
async def test_image_ids_never_reach_the_disk(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], directory: Path, image_id: str
) -> None:
    (directory / "00").mkdir(mode=0o700)
    (directory / "00" / f"256-{'0' * 32}").write_bytes(PNG)  # a file an id would name if paths were built from it
    answer = await client.get(
        f"/v1/catalogs/{catalog['id']}/images/{image_id}/data", headers={"X-Access-Token": shop.account_token}
    )
    assert answer.status_code == 404
    assert PNG not in answer.content


@pytest.mark.parametrize(
    "key", [ImageKey(0, "0" * 32), ImageKey(-1, "0" * 32), ImageKey(1, "../" * 10 + "x"), ImageKey(1, "A" * 32)]
)
def test_a_key_that_is_no_internal_value_names_no_path(key: ImageKey, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an image key"):
        FilesystemImageStore(tmp_path).path(key)


async def test_a_link_planted_in_a_files_place_is_not_followed(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], directory: Path, tmp_path: Path
) -> None:
    made = (await upload(client, shop, catalog, PNG, "image/png")).json()
    pk = ids.decode("image", made["id"])
    assert pk is not None
    path = directory / f"{pk % 256:02x}" / f"{pk}-{hashlib.md5(PNG, usedforsecurity=False).hexdigest()}"
    secret = tmp_path / "secret"
    secret.write_bytes(b"not for clients")
    path.unlink()
    path.symlink_to(secret)
    answer = await client.get(
        f"/v1/catalogs/{catalog['id']}/images/{made['id']}/data", headers={"X-Access-Token": shop.account_token}
    )
    assert answer.status_code == 404
    assert b"not for clients" not in answer.content
