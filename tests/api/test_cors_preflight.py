"""A browser's CORS preflight is answered once per day per URL: `Access-Control-Max-Age`
lets it cache the answer (docs/api/conventions.md "Requests from browsers")."""

from __future__ import annotations

import httpx


async def test_a_preflight_is_cached_for_a_day(client: httpx.AsyncClient) -> None:
    response = await client.options(
        "/v1/location/orders",
        headers={
            "Origin": "https://shop.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "X-Access-Token, Content-Type",
        },
    )
    assert response.status_code == 200
    assert response.headers["access-control-max-age"] == "86400"
    assert response.headers["access-control-allow-origin"] == "*"
    assert response.headers["access-control-allow-headers"] == "X-Access-Token, Content-Type"
    assert response.content == b""
