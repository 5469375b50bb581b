"""docs/api/catalogs.md "Images" and docs/api/conventions.md "Errors": upload, reads, removal."""

from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from comptoir.catalogs.images import MAX_BYTES, remove_unused
from comptoir.kit import clock
from tests.api.catalogs.conftest import create
from tests.api.conftest import Shop
from tests.factories import World

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 100
GIF = b"GIF89a" + b"\x00" * 30
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 30
BMP = b"BM" + b"\x00" * 60


@pytest.fixture
async def catalog(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return (await create(client, shop, {"name": "Carte"})).json()


async def upload(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], data: bytes, content_type: str, query: str = ""
) -> httpx.Response:
    return await client.post(
        f"/v1/catalogs/{catalog['id']}/images{query}",
        content=data,
        headers={"X-Access-Token": shop.account_token, "Content-Type": content_type},
    )


@pytest.mark.parametrize(
    ("data", "content_type"),
    [(PNG, "image/png"), (JPEG, "image/jpeg"), (GIF, "image/gif"), (WEBP, "image/webp"), (BMP, "image/bmp")],
)
async def test_an_upload_answers_its_metadata(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], data: bytes, content_type: str
) -> None:
    clock.freeze(datetime(2026, 6, 24, 12, 0, tzinfo=UTC))
    answer = await upload(client, shop, catalog, data, content_type)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body == {
        "id": body["id"],
        "type": content_type,
        "size": len(data),
        "md5": hashlib.md5(data, usedforsecurity=False).hexdigest(),
        "seconds_before_removal": 30 * 24 * 3600,
        "private_ref": None,
    }


async def test_metadata_list_and_bytes_read_back(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    # one instant throughout: `seconds_before_removal` counts down with the clock, and a second
    # that ended between the upload and a read made the two answers differ
    clock.freeze(datetime(2026, 6, 24, 12, 0, tzinfo=UTC))
    made = (await upload(client, shop, catalog, PNG, "image/png", "?private_ref=hero")).json()
    assert made["private_ref"] == "hero"
    auth = {"X-Access-Token": shop.account_token}
    base = f"/v1/catalogs/{catalog['id']}/images"
    assert (await client.get(base, headers=auth)).json() == [made]
    assert (await client.get(f"{base}/{made['id']}", headers=auth)).json() == made
    data = await client.get(f"{base}/{made['id']}/data", headers=auth)
    assert (data.content, data.headers["content-type"]) == (PNG, "image/png")
    other = await world.token("account[all_catalogs.read]", account=shop.account, client=await world.client(name="B"))
    seen = await client.get(f"{base}/{made['id']}", headers={"X-Access-Token": other})
    assert seen.json() == {**made, "private_ref": None}  # a private ref is its client's alone


@pytest.mark.parametrize(
    ("data", "content_type"),
    [(PNG, "image/png"), (JPEG, "image/jpeg"), (GIF, "image/gif"), (WEBP, "image/webp"), (BMP, "image/bmp")],
)
async def test_an_images_bytes_are_served_with_nosniff(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], data: bytes, content_type: str
) -> None:
    made = (await upload(client, shop, catalog, data, content_type)).json()
    url = f"/v1/catalogs/{catalog['id']}/images/{made['id']}/data"
    for answer in (await client.get(url, headers=shop.headers(shop.account_token)),
                   await client.head(url, headers=shop.headers(shop.account_token))):  # fmt: skip
        assert answer.status_code == 200
        assert (answer.headers["content-type"], answer.headers["x-content-type-options"]) == (content_type, "nosniff")


async def test_an_unsupported_content_type_is_415(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    before = await world.snapshot()
    answer = await upload(client, shop, catalog, PNG, "image/tiff")
    assert answer.status_code == 415
    assert answer.json() == {
        "error_type": "unsupported_media_type",
        "message": "An image must be sent as one of image/jpeg, image/png, image/webp, image/gif, image/bmp "
        "(Content-Type), not 'image/tiff'",
    }
    assert await world.snapshot() == before


async def test_bytes_that_are_not_the_declared_type_are_422(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    before = await world.snapshot()
    answer = await upload(client, shop, catalog, PNG, "image/jpeg")
    assert answer.status_code == 422
    assert answer.json()["errors"] == [{"field": "image", "message": "the bytes are not a jpeg image"}]
    assert (await upload(client, shop, catalog, b"<svg/>", "image/png")).status_code == 422
    assert await world.snapshot() == before


async def test_more_than_1_mb_is_422(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    exactly = PNG + b"\x00" * (MAX_BYTES - len(PNG))
    assert (await upload(client, shop, catalog, exactly, "image/png")).status_code == 200
    before = await world.snapshot()
    answer = await upload(client, shop, catalog, exactly + b"\x00", "image/png")
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {"field": "image", "message": "must be at most 1 MB (1048576 bytes); it is larger"}
    ]
    assert await world.snapshot() == before


async def test_uploading_needs_write_on_that_catalog(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    reader = await world.token("account[all_catalogs.read]", account=shop.account)
    before = await world.snapshot()
    answer = await client.post(
        f"/v1/catalogs/{catalog['id']}/images",
        content=PNG,
        headers={"X-Access-Token": reader, "Content-Type": "image/png"},
    )
    assert (answer.status_code, answer.json()) == (
        403,
        {
            "error_type": "forbidden",
            "message": "The connection's scope (account[all_catalogs.read]) does not allow this request: "
            "it needs catalog.write or all_catalogs.write",
        },
    )
    assert await world.snapshot() == before


async def test_a_catalog_may_use_its_images_and_used_ones_are_kept(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    clock.freeze(datetime(2026, 6, 1, tzinfo=UTC))
    used = (await upload(client, shop, catalog, PNG, "image/png")).json()
    unused = (await upload(client, shop, catalog, GIF, "image/gif")).json()
    data = {
        "categories": [{"ref": "c", "name": "C", "image_ids": [used["id"]]}],
        "products": [{"category_ref": "c", "name": "P", "image_ids": [used["id"]], "skus": [{"price": "1 EUR"}]}],
    }
    put = await client.put(
        f"/v1/catalogs/{catalog['id']}", json={"data": data}, headers={"X-Access-Token": shop.account_token}
    )
    assert put.status_code == 200, put.text
    listed = (
        await client.get(f"/v1/catalogs/{catalog['id']}/images", headers={"X-Access-Token": shop.account_token})
    ).json()
    assert [(i["id"], i["seconds_before_removal"]) for i in listed] == [(used["id"], None), (unused["id"], 30 * 86400)]
    clock.freeze(datetime(2026, 6, 1, tzinfo=UTC) + timedelta(days=30, seconds=-1))
    assert await remove_unused(world.db) == 0
    clock.freeze(datetime(2026, 7, 1, tzinfo=UTC))
    assert await remove_unused(world.db) == 1
    listed = (
        await client.get(f"/v1/catalogs/{catalog['id']}/images", headers={"X-Access-Token": shop.account_token})
    ).json()
    assert [i["id"] for i in listed] == [used["id"]]


async def test_an_image_of_another_catalog_is_unknown_to_this_one(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    other = (await create(client, shop, {"name": "Other"})).json()
    image = (await upload(client, shop, other, PNG, "image/png")).json()
    auth = {"X-Access-Token": shop.account_token}
    read = await client.get(f"/v1/catalogs/{catalog['id']}/images/{image['id']}", headers=auth)
    assert (read.status_code, read.json()) == (
        404,
        {"error_type": "not_found", "message": f"No image with id {image['id']!r}"},
    )
    data = {"categories": [{"ref": "c", "name": "C", "image_ids": [image["id"]]}]}
    put = await client.put(f"/v1/catalogs/{catalog['id']}", json={"data": data}, headers=auth)
    assert put.status_code == 422
    assert put.json()["errors"] == [
        {"field": "data.categories[0].image_ids[0]", "message": f"no image of this catalog has the id {image['id']!r}"}
    ]
