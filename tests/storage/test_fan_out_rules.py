"""Fan-out access filtering (spec 6.2 "the connection can access", spec 5.1 scopes,
docs/api/callbacks-events.md "Who receives an event"), for every resource type that records events."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from comptoir import events
from comptoir.models import Event
from tests.factories import World

ALL = {k: list(v) for k, v in events.RESOURCE_EVENTS.items()}


class Setup:
    def __init__(self, world: World) -> None:
        self.world = world
        self.connections: dict[str, int] = {}

    async def build(self) -> None:
        w = self.world
        owner = await w.user()
        self.account = await w.account(owner=owner)
        self.loc1 = await w.location(self.account, name="One")
        self.loc2 = await w.location(self.account, name="Two")
        self.cat_loc1 = await w.catalog(location=self.loc1, name="C1")
        self.cat_loc2 = await w.catalog(location=self.loc2, name="C2")
        self.cat_account = await w.catalog(account=self.account, name="CA")
        self.list_loc1 = await w.customer_list(location=self.loc1, name="L1")
        self.list_account = await w.customer_list(account=self.account, name="LA")
        self.writer = await w.client(name="Writer")
        grants: dict[str, dict[str, Any]] = {
            "loc1_orders": {"scope": "location[orders.read]", "location": self.loc1},
            "loc2_orders": {"scope": "location[orders.read]", "location": self.loc2},
            "loc1_catalog_c1": {"scope": "location[catalog.read]", "location": self.loc1, "catalog": self.cat_loc1},
            "loc1_catalog_ca": {"scope": "location[catalog.read]", "location": self.loc1, "catalog": self.cat_account},
            "loc1_all_catalogs": {"scope": "location[all_catalogs.read]", "location": self.loc1},
            "acct_all_catalogs": {"scope": "account[all_catalogs.read]", "account": self.account},
            "acct_orders": {"scope": "account[orders.read]", "account": self.account},
            "loc1_inventory": {"scope": "location[inventory.read]", "location": self.loc1},
            "acct_catalog_ca": {"scope": "account[catalog.read]", "account": self.account, "catalog": self.cat_account},
            "loc1_list_l1": {
                "scope": "location[customer_list.read]",
                "location": self.loc1,
                "customer_list": self.list_loc1,
            },
            "loc1_all_lists": {"scope": "location[all_customer_lists.read]", "location": self.loc1},
            "acct_all_lists": {"scope": "account[all_customer_lists.read]", "account": self.account},
        }
        for name, grant in grants.items():
            scope = grant.pop("scope")
            app = await w.client(name=name)
            token = await w.token(scope, client=app, **grant)
            self.connections[name] = await w.subscribe(token, None, ALL)

    async def receivers(self, **record: Any) -> set[str]:
        async with self.world.db.transaction() as session:
            change = await events.record(session, ids={}, account_id=self.account.id, **record)
            rows = (
                await session.execute(
                    select(Event.connection_id, Event.resource_type).where(Event.change_id == change.id)
                )
            ).all()
        by_id = {v: k for k, v in self.connections.items()}
        return {by_id[c] + ("" if rt == record["resource_type"] else f":{rt}") for c, rt in rows}


@pytest.fixture
async def setup(world: World) -> Setup:
    built = Setup(world)
    await built.build()
    return built


async def test_order_events_go_to_order_readers_of_that_location(setup: Setup) -> None:
    got = await setup.receivers(resource_type="order", event_type="create", location_id=setup.loc1.id)
    assert got == {"loc1_orders", "acct_orders"}


async def test_own_order_goes_to_the_connection_that_created_the_order(setup: Setup) -> None:
    creator = setup.connections["loc1_orders"]
    got = await setup.receivers(
        resource_type="order", event_type="update", location_id=setup.loc1.id, origin_connection_id=creator
    )
    assert got == {"loc1_orders", "loc1_orders:own_order", "acct_orders"}


async def test_own_order_needs_orders_read(setup: Setup) -> None:
    creator = setup.connections["loc1_inventory"]  # subscribed to own_order, without orders.read
    got = await setup.receivers(
        resource_type="order", event_type="update", location_id=setup.loc1.id, origin_connection_id=creator
    )
    assert got == {"loc1_orders", "acct_orders"}


async def test_catalog_events_follow_bindings_and_all_catalogs(setup: Setup) -> None:
    loc1 = await setup.receivers(
        resource_type="catalog", event_type="update", location_id=setup.loc1.id, catalog_id=setup.cat_loc1.id
    )
    assert loc1 == {"loc1_catalog_c1", "loc1_all_catalogs", "acct_all_catalogs"}
    loc2 = await setup.receivers(
        resource_type="catalog", event_type="update", location_id=setup.loc2.id, catalog_id=setup.cat_loc2.id
    )
    assert loc2 == {"acct_all_catalogs"}
    account = await setup.receivers(resource_type="catalog", event_type="update", catalog_id=setup.cat_account.id)
    assert account == {"loc1_catalog_ca", "loc1_all_catalogs", "acct_all_catalogs", "acct_catalog_ca"}


async def test_customer_list_and_customer_events_follow_bindings_and_all_lists(setup: Setup) -> None:
    for resource_type in ("customer_list", "customer"):
        loc1 = await setup.receivers(
            resource_type=resource_type,
            event_type="update",
            location_id=setup.loc1.id,
            customer_list_id=setup.list_loc1.id,
        )
        assert loc1 == {"loc1_list_l1", "loc1_all_lists", "acct_all_lists"}
        account = await setup.receivers(
            resource_type=resource_type, event_type="update", customer_list_id=setup.list_account.id
        )
        assert account == {"loc1_all_lists", "acct_all_lists"}


async def test_inventory_events_go_to_inventory_and_deprecated_location_catalog_readers(setup: Setup) -> None:
    # spec 5.1: only location[catalog.*] grants inventory (deprecated), not account[catalog.*]
    got = await setup.receivers(
        resource_type="inventory", event_type="patch", location_id=setup.loc1.id, catalog_id=setup.cat_loc1.id
    )
    assert got == {"loc1_inventory", "loc1_catalog_c1", "loc1_catalog_ca"}


async def test_location_events_go_to_any_connection_of_that_location_or_account(setup: Setup) -> None:
    got = await setup.receivers(resource_type="location", event_type="update", location_id=setup.loc2.id)
    assert got == {"loc2_orders", "acct_all_catalogs", "acct_orders", "acct_all_lists", "acct_catalog_ca"}
