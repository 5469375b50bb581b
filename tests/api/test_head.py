"""HEAD is answered wherever GET is, as that GET without its body (docs/api/conventions.md
"Methods"), done once for every route by the middleware (`http.middleware.head_as_get`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from comptoir.config import Settings
from tests.api.conftest import Shop
from tests.fuzz import path_values_for, seed, token_for

_PARAMETER = re.compile(r"\{([^/{}]+)\}")
# Headers that differ from one answer to the next, whatever the method.
_VARYING = {"x-request-id", "date", "ratelimit", "ratelimit-policy", "set-cookie"}
# answers that change with every request: the metrics count the requests themselves, and their
# durations' sums change the page's length at random
_CHANGING = {"/metrics"}
# answers that never end (an event stream): HEAD alone, which ends with the headers
_ENDLESS = {"/v1/callback/stream"}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Without rate limits: the walk sends three requests to each of 79 routes."""
    return settings.model_copy(update={"rate_limits": "off"})


def _get_paths(routes: list[Any], prefix: str = "") -> Iterator[str]:
    """The path of every GET route, those of included routers with their prefix."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from _get_paths(included.routes, prefix + route.include_context.prefix)
        elif "GET" in (getattr(route, "methods", None) or ()):
            yield prefix + route.path


def _same(headers: httpx.Headers) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name not in _VARYING}


async def test_every_get_route_answers_head_with_the_same_headers_and_no_body(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop
) -> None:
    values = await seed(client, shop)
    paths = sorted(set(_get_paths(app.routes)))
    assert len(paths) > 60  # the API's, the documents' and the back office's
    walked = []
    for template in paths:
        known = path_values_for(template, values)
        path = _PARAMETER.sub(lambda match, known=known: str(known.get(match.group(1), "x")), template)
        headers = {"X-Access-Token": token_for(shop, template)}
        if template in _ENDLESS:
            head = await client.head(path, headers=headers)
            assert (head.status_code, head.headers["content-type"], head.content) == (
                200,
                "text/event-stream; charset=utf-8",
                b"",
            ), path
            continue
        got = await client.get(path, headers=headers)
        head = await client.head(path, headers=headers)
        again = await client.get(path, headers=headers)
        if template not in _CHANGING and _same(again.headers) == _same(got.headers):
            assert (head.status_code, _same(head.headers)) == (got.status_code, _same(got.headers)), path
        else:  # an answer that changes with time (an image's seconds before removal)
            assert (head.status_code, list(_same(head.headers))) == (got.status_code, list(_same(got.headers))), path
        assert head.content == b"", path
        walked.append((path, got.status_code))
    # the walk reached real resources, not only refusals
    assert sum(status == 200 for _, status in walked) > len(walked) // 2


async def test_head_of_a_list_keeps_its_cursor_and_etag(client: httpx.AsyncClient, shop: Shop) -> None:
    got = await client.get("/v1/location/orders?count=1", headers=shop.headers())
    head = await client.head("/v1/location/orders?count=1", headers=shop.headers())
    assert head.status_code == 200
    assert head.headers["etag"] == got.headers["etag"]
    assert head.headers["content-length"] == got.headers["content-length"] == str(len(got.content))
    assert head.content == b""


async def test_head_with_a_matching_etag_is_a_304(client: httpx.AsyncClient, shop: Shop) -> None:
    etag = (await client.get("/v1/location", headers=shop.headers())).headers["etag"]
    head = await client.head("/v1/location", headers={**shop.headers(), "If-None-Match": etag})
    assert (head.status_code, head.content) == (304, b"")
