"""The permission vocabulary of `auth.access` (its docstring): alternatives per level, a
rate-limit kind chosen from a query parameter, the write rule on the catalog or customer list
the path names, and one dependency per declaration. The HTTP behaviour of each is tested in
tests/api (catalogs/test_catalog_permissions.py, customers/test_customer_list_access.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from starlette.requests import Request

from comptoir.auth.access import (
    KindByQuery,
    PerLevel,
    Permission,
    WriteOn,
    authorize,
    guard,
    permission_of,
    require,
)
from comptoir.auth.context import Ctx
from comptoir.auth.request_context import start
from comptoir.auth.scopes import parse_scope
from comptoir.errors import Forbidden, Unauthorized
from comptoir.kit import ids
from comptoir.ratelimit import GENERAL, HEAVY, RateLimiter
from comptoir.ratelimit.memory import MemoryBackend

BOUND, OTHER = 41, 42  # catalog ids: the one the connection is bound to, another one
ACCOUNT, LOCATION = 7, 70


class Reader:
    """A direct driver that answers one catalog row and counts the statements sent."""

    def __init__(self, row: dict[str, Any] | None) -> None:
        self.row, self.reads = row, 0

    async def one(self, query: Any, **params: Any) -> dict[str, Any] | None:
        self.reads += 1
        return self.row


class Cache:
    """The connection cache, holding the one context the test gives."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx

    async def cached(self, kind: str, key: Any, load: Any, *args: Any) -> Ctx:
        return self.ctx


def context(scope: str, level: str = "location") -> Ctx:
    return Ctx(
        connection_id=1, connection_name="c", client_id=1, client_name="App", user_id=1, level=level,
        account_id=ACCOUNT, location_id=LOCATION if level == "location" else None, catalog_id=BOUND,
        customer_list_id=None, scope=parse_scope(scope),
    )  # fmt: skip


def request(ctx: Ctx, reader: Reader, catalog_id: int = OTHER, query: bytes = b"") -> Request:
    state = SimpleNamespace(
        fast=reader, cache=Cache(ctx), key=b"k", limiter=RateLimiter(MemoryBackend(), enabled=False)
    )
    app = SimpleNamespace(state=SimpleNamespace(comptoir=state))
    scope: dict[str, Any] = {
        "type": "http",
        "method": "PUT",
        "path": "/v1/catalogs/x",
        "headers": [(b"x-access-token", b"token")],
        "query_string": query,
        "app": app,
        "path_params": {"catalog_id": ids.encode("catalog", catalog_id)},
    }
    start(scope, "r1")  # as the outermost middleware does (http.middleware.tag_request)
    return Request(scope)


UPDATE = Permission(
    "location,account",
    "catalog.write|all_catalogs.write",
    on=WriteOn("catalog", "catalog_id", change="update", bound_change=True),
)
ACCOUNT_LEVEL = {"id": OTHER, "account_id": ACCOUNT, "location_id": None}
LOCATION_LEVEL = {"id": OTHER, "account_id": ACCOUNT, "location_id": LOCATION}


def test_per_level_needs_and_short_forms() -> None:
    need = PerLevel(location="inventory.read|catalog.read", account="inventory.read")
    assert (need.at("location"), need.at("account")) == ("inventory.read|catalog.read", "inventory.read")
    permission = Permission("location,account", need)
    assert permission.at_level("location") == Permission("location", need)
    with pytest.raises(ValueError, match="location has no account"):
        Permission("location", need).at_level("account")


@pytest.mark.parametrize(
    ("query", "kind"),
    [(b"", HEAVY), (b"hide_data=true", GENERAL), (b"hide_data=1", GENERAL), (b"hide_data=0", HEAVY),
     (b"hide_data=maybe", HEAVY)],
)  # fmt: skip
def test_the_rate_limit_kind_is_chosen_from_the_query(query: bytes, kind: str) -> None:
    chosen = KindByQuery("hide_data", ("true", "1"), GENERAL, HEAVY)
    assert chosen.of(request(context("location[catalog.read]"), Reader(None), query=query)) == kind


def test_one_declaration_is_one_dependency_that_carries_it() -> None:
    on = WriteOn("customer_list", "customer_list_id", "writing to customer list {id!r}")
    dependency = require("location,account", "customer_list.write|all_customer_lists.write", on=on)
    assert dependency is require("location,account", "customer_list.write|all_customer_lists.write", on=on)
    assert permission_of(dependency) == Permission(
        "location,account", "customer_list.write|all_customer_lists.write", GENERAL, on
    )
    assert guard(Permission("account", "orders.read")) is require("account", "orders.read")
    assert permission_of(lambda: None) is None


@pytest.mark.parametrize(
    ("scope", "level", "catalog_id"),
    [
        ("account[all_catalogs.write]", "account", OTHER),
        ("account[catalog.write]", "account", BOUND),
        ("location[catalog.write]", "location", BOUND),  # the bound change allowed at any level
    ],
)
async def test_the_write_rule_reads_no_row_when_the_scope_decides(scope: str, level: str, catalog_id: int) -> None:
    ctx, reader = context(scope, level), Reader(ACCOUNT_LEVEL)
    assert await authorize(request(ctx, reader, catalog_id), UPDATE, "token") is ctx
    assert reader.reads == 0


async def test_a_location_token_changing_a_location_level_catalog_reads_its_level_once() -> None:
    ctx, reader = context("location[all_catalogs.write]"), Reader(LOCATION_LEVEL)
    assert await authorize(request(ctx, reader), UPDATE, "token") is ctx
    assert reader.reads == 1


async def test_a_location_token_changing_an_account_level_catalog_is_401() -> None:
    with pytest.raises(Unauthorized, match=r"^A location-level token cannot update an account-level catalog$"):
        await authorize(request(context("location[all_catalogs.write]"), Reader(ACCOUNT_LEVEL)), UPDATE, "token")


async def test_a_catalog_read_through_all_catalogs_without_its_write_scope_is_403() -> None:
    ctx = context("account[catalog.write,all_catalogs.read]", "account")
    with pytest.raises(Forbidden, match=r"does not allow this request: it needs catalog\.write$"):
        await authorize(request(ctx, Reader(LOCATION_LEVEL)), UPDATE, "token")


@pytest.mark.parametrize(
    "row",
    [
        None,  # no such catalog
        {"id": OTHER, "account_id": ACCOUNT + 1, "location_id": None},  # another account's
        {"id": OTHER, "account_id": ACCOUNT, "location_id": LOCATION + 1},  # another location's
    ],
)
async def test_a_catalog_out_of_reach_is_left_to_the_services_404(row: dict[str, Any] | None) -> None:
    ctx = context("location[catalog.write]")  # bound to another catalog
    assert await authorize(request(ctx, Reader(row)), UPDATE, "token") is ctx
