"""The client's retry rules, idempotency keys and typed errors, against scripted answers
(httpx.MockTransport); clients/python/tests/test_client_live.py shows them on a real server."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from tests.waiting import wait_until

from comptoir_client import (
    AsyncComptoir,
    Comptoir,
    NotFound,
    RateLimited,
    Retries,
    RoutingError,
    TransportError,
    UnprocessableEntity,
)

FAST = Retries(attempts=3, backoff=0.001, max_backoff=0.001, max_rate_limit_wait=5)
ORDER = {"id": "or4k3j"}


def client(answers: list[Callable[[httpx.Request], httpx.Response]], seen: list[httpx.Request]) -> Comptoir:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers[min(len(seen), len(answers)) - 1](request)

    return Comptoir(token="t0k3n", base_url="http://comptoir.test", transport=httpx.MockTransport(handle), retries=FAST)


def error(status: int, error_type: str, **extra: object) -> Callable[[httpx.Request], httpx.Response]:
    headers = {"Retry-After": str(extra.pop("retry_after"))} if "retry_after" in extra else {}
    body = {"error_type": error_type, "message": "m", **extra}
    return lambda _request: httpx.Response(status, json=body, headers=headers | {"X-Request-Id": "rq1"})


def drop(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadError("connection reset", request=request)


def test_the_token_travels_in_x_access_token() -> None:
    seen: list[httpx.Request] = []
    client([lambda _r: httpx.Response(200, json={"id": "h3sfgk", "name": "A", "currency": "EUR"})], seen).accounts.get(
        "h3sfgk"
    )
    assert (seen[0].headers["X-Access-Token"], seen[0].url.path) == ("t0k3n", "/v1/accounts/h3sfgk")


def test_a_create_retried_after_a_dropped_answer_and_a_5xx_sends_one_key() -> None:
    seen: list[httpx.Request] = []
    ok = client([drop, error(502, "bad_gateway"), lambda _r: httpx.Response(200, json={"id": "or4k3j"})], seen)
    with pytest.raises(Exception, match="validation error"):  # the fake answer is no Order: the tries are the point
        ok.orders.create("4k3jxr-1", {"status": "new"})
    keys = [request.headers["Idempotency-Key"] for request in seen]
    assert len(keys) == 3
    assert len(set(keys)) == 1
    assert len(keys[0]) == 36


def test_a_patch_is_not_resent_once_it_may_have_arrived() -> None:
    seen: list[httpx.Request] = []
    with pytest.raises(TransportError, match="PATCH /v1/locations/4k3jxr-1/orders/or4k3j: ReadError"):
        client([drop], seen).orders.set_status("4k3jxr-1", "or4k3j", "accepted")
    assert len(seen) == 1


def test_retries_are_bounded() -> None:
    seen: list[httpx.Request] = []
    with pytest.raises(TransportError):
        client([drop], seen).orders.get("4k3jxr-1", "or4k3j")
    assert len(seen) == 3


def test_a_429_is_waited_out_for_its_retry_after() -> None:
    seen: list[httpx.Request] = []
    answers = [error(429, "too_many_requests", retry_after=0), error(404, "not_found")]
    with pytest.raises(NotFound):
        client(answers, seen).orders.get("4k3jxr-1", "or4k3j")
    assert len(seen) == 2


def test_a_429_asking_longer_than_the_bound_raises_rate_limited_at_once() -> None:
    seen: list[httpx.Request] = []
    with pytest.raises(RateLimited) as raised:
        client([error(429, "too_many_requests", retry_after=37)], seen).orders.get("4k3jxr-1", "or4k3j")
    assert (raised.value.retry_after, raised.value.request_id, len(seen)) == (37.0, "rq1", 1)


def test_a_422_lists_its_field_errors() -> None:
    errors = [{"field": "items[0].price", "message": "'abc' is not a valid monetary amount"}]
    with pytest.raises(UnprocessableEntity) as raised:
        client([error(422, "unprocessable_entity", errors=errors)], []).orders.create("4k3jxr-1", {})
    assert [(e.field, e.message) for e in raised.value.errors] == [
        ("items[0].price", "'abc' is not a valid monetary amount")
    ]
    assert raised.value.status == 422


def test_the_0_1_name_of_the_422_error_still_works_with_a_deprecation_warning() -> None:
    from comptoir_client import errors

    with pytest.warns(
        DeprecationWarning, match=r"^comptoir_client.errors.ValidationError is UnprocessableEntity since 0.2"
    ):
        renamed = errors.ValidationError

    assert renamed is UnprocessableEntity


def test_the_package_does_not_export_a_name_pydantic_has() -> None:
    import pydantic

    import comptoir_client

    assert [name for name in comptoir_client.__all__ if not name.startswith("_") and hasattr(pydantic, name)] == []


def test_a_routing_error_is_a_not_found() -> None:
    with pytest.raises(RoutingError) as raised:
        client([error(404, "routing_error")], []).locations.get("x")
    assert isinstance(raised.value, NotFound)


def test_pages_follow_x_cursor_next_until_it_is_absent() -> None:
    seen: list[httpx.Request] = []
    account = {"id": "h3sfgk", "name": "A", "currency": "EUR"}
    answers = [
        lambda _r: httpx.Response(200, json=[account, account], headers={"X-Cursor-Next": "c1"}),
        lambda _r: httpx.Response(200, json=[account]),
    ]
    pages = list(client(answers, seen).accounts.list(count=2).pages())
    assert [len(page.items) for page in pages] == [2, 1]
    assert [page.next_cursor for page in pages] == ["c1", None]
    assert [request.url.params.get("cursor") for request in seen] == [None, "c1"]
    assert seen[1].url.params["count"] == "2"


async def test_the_async_client_follows_the_same_rules() -> None:
    seen: list[httpx.Request] = []
    account = {"id": "h3sfgk", "name": "A", "currency": "EUR"}

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json=[account], headers={"X-Cursor-Next": "c1"} if len(seen) == 2 else {})

    async with AsyncComptoir(
        "t0k3n", "http://comptoir.test/v1", transport=httpx.MockTransport(handle), retries=FAST
    ) as c:
        names = [account.name async for account in c.accounts.list()]
    assert (names, len(seen)) == (["A", "A"], 3)


def test_an_id_stays_in_its_path_segment() -> None:
    seen: list[httpx.Request] = []
    with pytest.raises(NotFound):
        client([error(404, "not_found")], seen).orders.get("4k3jxr-1", "../../accounts/h3sfgk?x=1")
    assert seen[0].url.raw_path == b"/v1/locations/4k3jxr-1/orders/..%2F..%2Faccounts%2Fh3sfgk%3Fx%3D1"


def paged(seen: list[httpx.Request], pages: int) -> Comptoir:
    account = {"id": "h3sfgk", "name": "A", "currency": "EUR"}

    def answer(request: httpx.Request) -> httpx.Response:
        n = int(request.url.params.get("cursor", "0"))
        headers = {"X-Cursor-Next": str(n + 1)} if n + 1 < pages else {}
        return httpx.Response(200, json=[account | {"name": f"page {n}"}], headers=headers)

    return client([answer], seen)


def test_a_walk_stopped_after_its_first_page_asks_for_no_other() -> None:
    seen: list[httpx.Request] = []
    walk = paged(seen, 5).accounts.list().pages()
    assert next(walk).items[0].name == "page 0"
    walk.close()
    assert len(seen) == 1


def test_from_the_second_page_on_the_next_is_read_ahead_at_most_one() -> None:
    seen: list[httpx.Request] = []
    walk = paged(seen, 5).accounts.list().pages()
    assert [next(walk).items[0].name for _ in range(2)] == ["page 0", "page 1"]
    wait_until(lambda: len(seen) == 3, "the read-ahead")  # asked for in a thread, which may start late
    walk.close()
    assert [request.url.params.get("cursor") for request in seen] == [None, "1", "2"]


def test_a_full_walk_reads_every_page_once_in_order_with_or_without_read_ahead() -> None:
    for read_ahead in (True, False):
        seen: list[httpx.Request] = []
        pages = list(paged(seen, 5).accounts.list().pages(read_ahead=read_ahead))
        assert [page.items[0].name for page in pages] == [f"page {n}" for n in range(5)]
        assert [request.url.params.get("cursor") for request in seen] == [None, "1", "2", "3", "4"]
