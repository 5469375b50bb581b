"""A method whose path names a location or an account works without that id (its short form,
`/v1/location/...`: the token's own) and with it (its long form), sync and async, against
scripted answers (httpx.MockTransport); test_client_live.py runs both on a real server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from comptoir_client import AsyncComptoir, Comptoir, NotFound, Retries

ONCE = Retries(attempts=1)
BODY = {"status": "new"}
ENTRIES = [{"sku_ref": "s1", "stock": 2}]

# (the call, as a method of the client and its arguments; the request it sends)
CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any], str, str]] = [
    ("locations.get", (), {}, "GET", "/v1/location"),
    ("locations.get", ("lc1",), {}, "GET", "/v1/locations/lc1"),
    ("locations.update", (BODY,), {}, "PATCH", "/v1/location"),
    ("locations.update", ("lc1", BODY), {}, "PATCH", "/v1/locations/lc1"),
    ("accounts.get", (), {}, "GET", "/v1/account"),
    ("accounts.get", ("ac1",), {}, "GET", "/v1/accounts/ac1"),
    ("orders.list", (), {"status": "new"}, "GET", "/v1/location/orders"),
    ("orders.list", ("lc1",), {}, "GET", "/v1/locations/lc1/orders"),
    ("orders.list_for_account", (), {}, "GET", "/v1/account/orders"),
    ("orders.list_for_account", ("ac1",), {}, "GET", "/v1/accounts/ac1/orders"),
    ("orders.create", (BODY,), {}, "POST", "/v1/location/orders"),
    ("orders.create", ("lc1", BODY), {}, "POST", "/v1/locations/lc1/orders"),
    ("orders.create", (), {"location_id": "lc1", "body": BODY}, "POST", "/v1/locations/lc1/orders"),
    ("orders.get", ("or1",), {}, "GET", "/v1/location/orders/or1"),
    ("orders.get", ("lc1", "or1"), {}, "GET", "/v1/locations/lc1/orders/or1"),
    ("orders.get", (), {"order_id": "or1"}, "GET", "/v1/location/orders/or1"),
    ("orders.get", ("lc1",), {"order_id": "or1"}, "GET", "/v1/locations/lc1/orders/or1"),
    ("orders.update", ("or1", BODY), {}, "PATCH", "/v1/location/orders/or1"),
    ("orders.update", ("lc1", "or1", BODY), {}, "PATCH", "/v1/locations/lc1/orders/or1"),
    ("orders.set_status", ("or1", "accepted"), {}, "PATCH", "/v1/location/orders/or1"),
    ("orders.set_status", ("lc1", "or1", "accepted"), {}, "PATCH", "/v1/locations/lc1/orders/or1"),
    ("deliveries.list_quotes", ("or1",), {}, "GET", "/v1/location/orders/or1/delivery_quotes"),
    ("deliveries.list_quotes", ("lc1", "or1"), {}, "GET", "/v1/locations/lc1/orders/or1/delivery_quotes"),
    ("deliveries.create_quote", ("or1", BODY), {}, "POST", "/v1/location/orders/or1/delivery_quotes"),
    ("deliveries.create_quote", ("lc1", "or1", BODY), {}, "POST", "/v1/locations/lc1/orders/or1/delivery_quotes"),
    ("deliveries.get_quote", ("or1", "qt1"), {}, "GET", "/v1/location/orders/or1/delivery_quotes/qt1"),
    ("deliveries.get_quote", ("lc1", "or1", "qt1"), {}, "GET", "/v1/locations/lc1/orders/or1/delivery_quotes/qt1"),
    ("deliveries.accept_quote", ("or1", "qt1"), {}, "POST", "/v1/location/orders/or1/delivery_quotes/qt1/accept"),
    (
        "deliveries.accept_quote",
        ("lc1", "or1", "qt1"),
        {},
        "POST",
        "/v1/locations/lc1/orders/or1/delivery_quotes/qt1/accept",
    ),
    ("deliveries.create", ("or1", BODY), {}, "POST", "/v1/location/orders/or1/delivery"),
    ("deliveries.create", ("lc1", "or1", BODY), {}, "POST", "/v1/locations/lc1/orders/or1/delivery"),
    ("deliveries.get", ("or1",), {}, "GET", "/v1/location/orders/or1/delivery"),
    ("deliveries.get", ("lc1", "or1"), {}, "GET", "/v1/locations/lc1/orders/or1/delivery"),
    ("deliveries.update", ("or1", BODY), {}, "PATCH", "/v1/location/orders/or1/delivery"),
    ("deliveries.update", ("lc1", "or1", BODY), {}, "PATCH", "/v1/locations/lc1/orders/or1/delivery"),
    ("customer_lists.list", (), {}, "GET", "/v1/location/customer_lists"),
    ("customer_lists.list", (), {"location_id": "lc1"}, "GET", "/v1/locations/lc1/customer_lists"),
    ("customer_lists.list", (), {"account_id": "ac1"}, "GET", "/v1/accounts/ac1/customer_lists"),
    ("customer_lists.create", ({"name": "A"},), {}, "POST", "/v1/location/customer_lists"),
    ("catalogs.list", (), {}, "GET", "/v1/location/catalogs"),
    ("catalogs.create", ({"name": "A"},), {"account_id": "ac1"}, "POST", "/v1/accounts/ac1/catalogs"),
    ("catalogs.get_inventory", ("ct1",), {}, "GET", "/v1/catalogs/ct1/location/inventory"),
    ("catalogs.get_inventory", ("ct1", "lc1"), {}, "GET", "/v1/catalogs/ct1/locations/lc1/inventory"),
    ("catalogs.replace_inventory", ("ct1", ENTRIES), {}, "PUT", "/v1/catalogs/ct1/location/inventory"),
    ("catalogs.replace_inventory", ("ct1", "lc1", ENTRIES), {}, "PUT", "/v1/catalogs/ct1/locations/lc1/inventory"),
    ("catalogs.patch_inventory", ("ct1", ENTRIES), {}, "PATCH", "/v1/catalogs/ct1/location/inventory"),
    ("catalogs.patch_inventory", ("ct1", "lc1", ENTRIES), {}, "PATCH", "/v1/catalogs/ct1/locations/lc1/inventory"),
]
IDS = [f"{call}{arguments}{named}" for call, arguments, named, _, _ in CALLS]


def recorder(seen: list[httpx.Request]) -> Callable[[httpx.Request], httpx.Response]:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(404, json={"error_type": "not_found", "message": "m"})

    return handle


def send(client: Comptoir, call: str, arguments: tuple[Any, ...], named: dict[str, Any]) -> None:
    resource, name = call.split(".")
    answer = getattr(getattr(client, resource), name)(*arguments, **named)
    if hasattr(answer, "__iter__") and not isinstance(answer, list):
        list(answer)  # a list asks when it is walked


async def send_async(client: AsyncComptoir, call: str, arguments: tuple[Any, ...], named: dict[str, Any]) -> None:
    resource, name = call.split(".")
    answer = getattr(getattr(client, resource), name)(*arguments, **named)
    if hasattr(answer, "__aiter__"):
        [item async for item in answer]
    else:
        await answer


def client(seen: list[httpx.Request]) -> Comptoir:
    return Comptoir("t0k3n", "http://comptoir.test", transport=httpx.MockTransport(recorder(seen)), retries=ONCE)


@pytest.mark.parametrize(("call", "arguments", "named", "verb", "path"), CALLS, ids=IDS)
def test_a_call_with_or_without_the_owner_id_sends_its_path(
    call: str, arguments: tuple[Any, ...], named: dict[str, Any], verb: str, path: str
) -> None:
    seen: list[httpx.Request] = []
    with client(seen) as comptoir, pytest.raises(NotFound):
        send(comptoir, call, arguments, named)
    assert [(request.method, request.url.path) for request in seen] == [(verb, path)]


@pytest.mark.parametrize(("call", "arguments", "named", "verb", "path"), CALLS, ids=IDS)
async def test_an_async_call_with_or_without_the_owner_id_sends_its_path(
    call: str, arguments: tuple[Any, ...], named: dict[str, Any], verb: str, path: str
) -> None:
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(recorder(seen))
    async with AsyncComptoir("t0k3n", "http://comptoir.test", transport=transport, retries=ONCE) as comptoir:
        with pytest.raises(NotFound):
            await send_async(comptoir, call, arguments, named)
    assert [(request.method, request.url.path) for request in seen] == [(verb, path)]


def test_a_short_form_body_is_the_body_sent() -> None:
    seen: list[httpx.Request] = []
    with client(seen) as comptoir, pytest.raises(NotFound):
        comptoir.orders.update("or1", {"seller_notes": "ring twice"})
    assert seen[0].content == b'{"seller_notes":"ring twice"}'


def test_a_call_with_too_many_arguments_is_a_type_error_naming_both_forms() -> None:
    expected = r"^expected \(location_id, order_id\) or \(order_id\), got 3 positional"
    with client([]) as comptoir, pytest.raises(TypeError, match=expected):
        comptoir.orders.get("lc1", "or1", "extra")  # type: ignore[call-overload]


def test_a_call_missing_an_argument_is_a_type_error() -> None:
    expected = r"^expected \(location_id, order_id, body\) or \(order_id, body\)"
    with client([]) as comptoir, pytest.raises(TypeError, match=expected):
        comptoir.orders.update(location_id="lc1", order_id="or1")  # type: ignore[call-overload]


def test_a_call_naming_an_argument_twice_is_a_type_error() -> None:
    with client([]) as comptoir, pytest.raises(TypeError, match=r"^expected \(location_id, order_id\)"):
        comptoir.orders.get("or1", order_id="or2", location_id="lc1")  # type: ignore[call-overload]


def test_a_list_with_both_owners_is_a_type_error() -> None:
    with client([]) as comptoir, pytest.raises(TypeError, match=r"^give location_id or account_id, not both$"):
        comptoir.catalogs.list(location_id="lc1", account_id="ac1")
