"""docs/api/catalogs.md "Images": an uploaded image that also holds markup (a GIF whose bytes
go on as an HTML page, which the signature check accepts) is answered as its image type with
`X-Content-Type-Options: nosniff`, from the database and from files alike, so that no browser
reads it as a page of this origin."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from comptoir.catalogs import images
from comptoir.config import Settings
from tests.api.catalogs.conftest import create
from tests.api.catalogs.test_images import upload
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - the API's fixtures

POLYGLOT = b"GIF89a" + b"<!doctype html><html><body><script>alert(document.cookie)</script></body></html>"


@pytest.fixture(params=["database", "files"])
def settings(settings: Settings, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Settings]:
    """Images kept in the database, or in a directory."""
    if request.param == "database":
        yield settings
        return
    directory = tmp_path / "images"
    directory.mkdir(mode=0o700)
    yield settings.model_copy(update={"image_directory": directory})
    images.use_directory(None)


@pytest.fixture
async def catalog(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return (await create(client, shop, {"name": "Carte"})).json()


async def test_an_image_holding_a_page_is_never_sniffed_as_one(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    made = await upload(client, shop, catalog, POLYGLOT, "image/gif")
    assert made.status_code == 200, made.text
    answer = await client.get(
        f"/v1/catalogs/{catalog['id']}/images/{made.json()['id']}/data", headers=shop.headers(shop.account_token)
    )
    assert answer.status_code == 200
    assert answer.content == POLYGLOT
    assert (answer.headers["content-type"], answer.headers["x-content-type-options"]) == ("image/gif", "nosniff")
