"""docs/api/catalogs.md: a catalog GET is served from the process's cache of whole answers
(`catalogs.read_cache.DATA_CACHE`), checked against the content's tag at every read: every
write, through this process or another, is seen by the next read."""

from __future__ import annotations

import httpx
from sqlalchemy import update

from comptoir.catalogs import read_cache, repository
from comptoir.kit import ids
from comptoir.models import Catalog
from tests.api.catalogs.conftest import create, full
from tests.api.conftest import Shop
from tests.factories import World


async def test_a_cached_catalog_read_follows_every_write(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    made = await create(client, shop, {"name": "Carte", "data": full()})
    assert made.status_code == 200, made.text
    catalog_id = made.json()["id"]
    pk = ids.decode(Catalog.KIND, catalog_id)
    path, auth = f"/v1/catalogs/{catalog_id}", shop.headers(shop.account_token)

    async def read() -> httpx.Response:
        answer = await client.get(path, headers=auth)
        assert answer.status_code == 200, answer.text
        return answer

    first, again = await read(), await read()
    assert first.content == again.content == made.content
    assert pk in read_cache.DATA_CACHE.entries  # the second read was the cache's

    renamed = await client.put(path, json={"name": "La carte"}, headers=auth)  # the head alone changes
    assert renamed.status_code == 200, renamed.text
    assert (await read()).content == renamed.content
    assert renamed.json()["name"] == "La carte"
    assert renamed.json()["data"] == first.json()["data"]

    replaced = await client.put(path, json={"data": {"variants": [{"ref": "v", "name": "V"}]}}, headers=auth)
    assert replaced.status_code == 200, replaced.text
    reread = await read()
    assert reread.content == replaced.content
    assert replaced.json()["data"]["variants"] == [{"ref": "v", "name": "V"}]

    # another process's writes, which this process's cache never hears of: the content
    # replaced (a new tag), then the catalog renamed
    async with world.db.transaction() as session:
        await repository.store_content(session, pk, None)
    emptied = await read()
    assert emptied.json()["data"] == {
        section: []
        for section in ("variants", "categories", "products", "option_lists", "deals", "discounts", "charges")
    }
    assert emptied.json()["name"] == "La carte"
    async with world.db.transaction() as session:
        await session.execute(update(Catalog).where(Catalog.id == pk).values(name="Elsewhere"))
    assert (await read()).json() == {**emptied.json(), "name": "Elsewhere"}
    assert len({first.headers["etag"], reread.headers["etag"], emptied.headers["etag"]}) == 3

    deleted = await client.delete(path, headers=auth)
    assert deleted.status_code == 200, deleted.text
    assert (await client.get(path, headers=auth)).status_code == 404


async def test_a_write_keeps_its_answer_for_the_reads_that_follow(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    made = await create(client, shop, {"name": "Carte", "data": full()})
    assert made.status_code == 200, made.text
    catalog_id = made.json()["id"]
    pk = ids.decode(Catalog.KIND, catalog_id)
    path, auth = f"/v1/catalogs/{catalog_id}", shop.headers(shop.account_token)
    # the creation's answer is kept: the first read is the cache's, the same bytes
    assert read_cache.DATA_CACHE.entries[pk][2] == made.content
    first = await client.get(path, headers=auth)
    assert (first.status_code, first.content) == (200, made.content)

    replaced = await client.put(path, json={"data": full()}, headers=auth)
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["data"]["products"][0]["id"] != made.json()["data"]["products"][0]["id"]
    async with world.db.transaction() as session:
        tag = await repository.content_tag(session, pk)
    assert read_cache.DATA_CACHE.entries[pk][:3:2] == (tag, replaced.content)
    reread = await client.get(path, headers={**auth, "If-None-Match": first.headers["etag"]})
    assert (reread.status_code, reread.content) == (200, replaced.content)
    assert reread.headers["etag"] != first.headers["etag"]
    same = await client.get(path, headers={**auth, "If-None-Match": reread.headers["etag"]})
    assert (same.status_code, same.content) == (304, b"")


async def test_a_refused_write_leaves_the_kept_answer(client: httpx.AsyncClient, shop: Shop) -> None:
    made = await create(client, shop, {"name": "Carte", "data": full()})
    assert made.status_code == 200, made.text
    pk = ids.decode(Catalog.KIND, made.json()["id"])
    path, auth = f"/v1/catalogs/{made.json()['id']}", shop.headers(shop.account_token)
    kept = read_cache.DATA_CACHE.entries[pk]

    refused = await client.put(path, json={"data": {"products": [{"name": "No skus"}]}}, headers=auth)
    assert refused.status_code == 422, refused.text
    assert read_cache.DATA_CACHE.entries[pk] == kept
    again = await client.get(path, headers=auth)
    assert (again.status_code, again.content) == (200, made.content)
