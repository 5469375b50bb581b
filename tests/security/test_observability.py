"""Abuse of `/v1/ready` and the metrics page (docs/operations.md "Metrics", "Health and
readiness"): no token needed, and nothing shown that a token would protect."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters

from __future__ import annotations

import httpx
from fastapi import FastAPI

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import Database, create_database
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - the API's fixtures
from tests.e2e.conftest import free_port
from tests.response_schemas import CheckedASGITransport


async def test_readiness_of_an_unreachable_database_shows_no_url_user_or_password(settings: Settings) -> None:
    port = free_port()
    url = f"postgresql://admin:hunter2-password@127.0.0.1:{port}/secretdb"
    broken = settings.model_copy(update={"database_url": url, "redis_url": f"redis://:redispass@127.0.0.1:{port}/0"})
    db = create_database(broken)
    app = create_app(broken, database=db, background=False)
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
        response = await http.get("/v1/ready")
    await db.dispose()
    await app.state.comptoir.limiter.close()
    assert response.status_code == 503
    assert response.json() == {
        "error_type": "service_unavailable",
        "message": "Not ready: database unavailable, migrations unavailable, redis unavailable",
    }
    for secret in ("hunter2", "admin", "secretdb", "redispass", str(port), "127.0.0.1"):
        assert secret not in response.text
        assert secret not in str(response.headers)


async def test_readiness_needs_no_token_and_ignores_a_bad_one(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/ready", headers={"X-Access-Token": "forged"})
    assert response.status_code == 200


async def test_head_and_options_on_readiness(client: httpx.AsyncClient) -> None:
    head = await client.head("/v1/ready")
    assert head.status_code == 200
    assert head.content == b""
    options = await client.options(
        "/v1/ready", headers={"Origin": "https://example.com", "Access-Control-Request-Method": "GET"}
    )
    # a CORS preflight of /v1 (docs/api/conventions.md "Responses"): any origin, kept a day
    assert (options.status_code, options.content) == (200, b"")
    assert options.headers["access-control-allow-origin"] == "*"
    assert options.headers["access-control-max-age"] == "86400"
    assert (await client.post("/v1/ready")).status_code == 404


async def test_tokens_and_ids_in_requests_never_become_labels(client: httpx.AsyncClient, shop: Shop) -> None:
    await client.get("/v1/location/orders/o_private123", headers=shop.headers())
    await client.get(f"/v1/{shop.location_token}")
    page = (await client.get("/metrics")).text
    assert shop.location_token not in page
    assert "o_private123" not in page


async def test_metrics_outside_the_allowed_networks_are_an_unknown_url(
    settings: Settings, database: Database, app: FastAPI
) -> None:
    closed = settings.model_copy(update={"metrics_allowed_networks": "10.0.0.0/8"})
    fresh = create_app(closed, database=database, background=False)
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=fresh), base_url="http://testserver") as http:
        # the ASGI transport's client is 127.0.0.1; a forwarded address grants nothing
        refused = await http.get("/metrics", headers={"X-Forwarded-For": "10.1.2.3", "X-Real-IP": "10.1.2.3"})
    assert refused.status_code == 404
    assert refused.json()["error_type"] == "routing_error"
    opened = settings.model_copy(update={"metrics_allowed_networks": "127.0.0.0/8"})
    fresh = create_app(opened, database=database, background=False)
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=fresh), base_url="http://testserver") as http:
        assert (await http.get("/metrics")).status_code == 200
    await fresh.state.comptoir.fast.close()


def test_a_metrics_path_inside_the_api_or_with_odd_characters_is_refused() -> None:
    import pytest
    from pydantic import ValidationError

    for bad in ("/v1/metrics", "/oauth2/m", "metrics", "/m?x=1", "/m etrics", "/" + "m" * 200):
        with pytest.raises(ValidationError):
            Settings(metrics_path=bad)
    assert Settings(metrics_path="off").metrics_path == ""
    assert Settings(metrics_path="/internal/metrics/").metrics_path == "/internal/metrics"


def test_the_metrics_networks_check_the_peer_address_ipv4_mapped_included() -> None:
    from comptoir.observe.endpoints import allowed

    settings = Settings(metrics_allowed_networks="10.0.0.0/8")
    assert allowed(settings, "10.1.2.3")
    assert allowed(settings, "::ffff:10.1.2.3")
    assert not allowed(settings, "192.168.1.1")
    assert not allowed(settings, "not-an-address")
    assert not allowed(settings, None)


async def test_a_trusted_proxys_forwarded_address_does_not_open_the_metrics(
    settings: Settings, database: Database
) -> None:
    """The allow list judges the TCP peer: behind a trusted proxy, the forwarded client
    (which a client may choose) neither opens the page nor closes it."""
    proxied = {"forwarded_allow_ips": "127.0.0.1"}  # the ASGI transport's client is the proxy
    closed = create_app(
        settings.model_copy(update={**proxied, "metrics_allowed_networks": "10.0.0.0/8"}),
        database=database,
        background=False,
    )
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=closed), base_url="http://testserver") as http:
        refused = await http.get("/metrics", headers={"X-Forwarded-For": "10.1.2.3"})
    assert (refused.status_code, refused.json()["error_type"]) == (404, "routing_error")
    opened = create_app(
        settings.model_copy(update={**proxied, "metrics_allowed_networks": "127.0.0.0/8"}),
        database=database,
        background=False,
    )
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=opened), base_url="http://testserver") as http:
        assert (await http.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"})).status_code == 200
    await closed.state.comptoir.fast.close()
    await opened.state.comptoir.fast.close()
