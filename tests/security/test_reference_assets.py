"""/docs/assets/{name} serves three files of the Swagger UI package and the page's start
script, nothing else: no other file of the package, no path out of it."""

from __future__ import annotations

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters
import httpx
import pytest

from tests.api.conftest import app, client  # noqa: F401 - the API's fixtures


@pytest.mark.parametrize(
    "path",
    [
        "/docs/assets/redoc.standalone.js",  # in the package, not served
        "/docs/assets/core.py",
        "/docs/assets/..%2Fcore.py",
        "/docs/assets/..%2F..%2Fcomptoir%2Fconfig.py",
        "/docs/assets/%2Fetc%2Fpasswd",
        "/docs/assets/swagger-ui.css%00.png",
        "/docs/assets/" + "a" * 5000,
    ],
)
async def test_path_traversal_and_unlisted_files_are_404(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error_type"] == "routing_error"


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
async def test_the_reference_takes_no_write(client: httpx.AsyncClient, method: str) -> None:
    response = await client.request(method, "/docs", content=b"<script>alert(1)</script>")
    assert response.status_code == 404  # as every unknown route and method (app.http_error)
    assert response.json()["error_type"] == "routing_error"
    assert "<script>" not in response.text


async def test_the_reference_cannot_be_framed_nor_load_from_another_host(client: httpx.AsyncClient) -> None:
    policy = (await client.get("/docs")).headers["content-security-policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    for name in ("script-src", "connect-src", "img-src", "style-src"):
        assert "http" not in directives[name], name
        assert "*" not in directives[name], name
