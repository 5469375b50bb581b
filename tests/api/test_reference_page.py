"""/docs: the interactive API reference, served with its own files, and the ways to it (the API
root, /redoc, /v1/docs)."""

from __future__ import annotations

import re
from pathlib import Path

import fastapi_offline
import httpx
import pytest

from tests.api.conftest import Shop
from tests.api.web.test_back_office_login import log_in

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
PACKAGE_FILES = Path(fastapi_offline.__file__).parent / "static"


async def test_the_reference_page_loads_only_its_own_files(client: httpx.AsyncClient) -> None:
    response = await client.get("/docs")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["content-security-policy"] == CSP
    assert response.headers["x-frame-options"] == "DENY"
    loaded = re.findall(r'(?:src|href)="([^"]+)"', response.text)
    assert loaded == [
        "/docs/assets/favicon.png",
        "/docs/assets/swagger-ui.css",
        "/v1/openapi.json",
        "/docs/assets/swagger-ui-bundle.js",
        "/docs/assets/start.js",
    ]
    assert "<script>" not in response.text  # no inline script: the policy forbids it


@pytest.mark.parametrize(
    ("name", "media_type"),
    [
        ("swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
        ("swagger-ui.css", "text/css; charset=utf-8"),
        ("favicon.png", "image/png"),
    ],
)
async def test_swagger_ui_files_are_served_from_the_package(
    client: httpx.AsyncClient, name: str, media_type: str
) -> None:
    response = await client.get(f"/docs/assets/{name}")
    assert response.status_code == 200
    assert response.headers["content-type"] == media_type
    assert response.content == (PACKAGE_FILES / name).read_bytes()


async def test_the_start_script_reads_the_document_and_asks_no_outside_validator(client: httpx.AsyncClient) -> None:
    response = await client.get("/docs/assets/start.js")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert 'url: "/v1/openapi.json"' in response.text
    assert "validatorUrl: null" in response.text
    assert "http" not in response.text


@pytest.mark.parametrize("path", ["/redoc", "/v1/docs", "/v1/docs/"])
async def test_other_reference_addresses_lead_to_docs(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 308
    assert response.headers["location"] == "/docs"


@pytest.mark.parametrize("path", ["/v1", "/v1/"])
async def test_the_api_root_names_the_reference(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 200
    assert response.json() == {
        "name": "Comptoir integration API",
        "version": "1",
        "docs": "/docs",
        "openapi": "/v1/openapi.json",
    }


async def test_the_developers_page_links_to_the_reference(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    page = await client.get("/developers")
    assert page.status_code == 200
    assert '<a href="/docs">API reference</a>' in page.text
