"""All SQL of orders (docs/architecture.md "Storage"): reading one order and pages of
orders, locking an order for an update, the customers an order attaches, ids, and writing a
new order with its private ref, its change and its events.

How a new order is written is this repository's choice, by database:
- PostgreSQL: one statement (data-modifying CTEs chained in one `WITH`): the order, the
  caller's private ref, the `order.create` change and one event per subscribed connection. On
  its own it is atomic, so without a transaction it runs on the direct driver in one round
  trip; inside the request's transaction (a customer to lock, an Idempotency-Key to keep) the
  same statement joins it.
- SQLite: one insert per table, in the write transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.core.private_refs import has_ref, refs_for, set_ref
from comptoir.customers.repository import cards_of
from comptoir.db.connection_cache import ConnectionCache
from comptoir.db.direct import Query, Write
from comptoir.db.engine import get_by_public_id
from comptoir.db.ids import allocate
from comptoir.db.unit import Unit
from comptoir.deliveries.repository import deliveries_of, delivery_of
from comptoir.events import repository as outbox
from comptoir.events import signals
from comptoir.kit import ids
from comptoir.kit.pagination import Key, Page, PageRequest, paginate
from comptoir.kit.times import localize
from comptoir.models import (
    Change,
    Customer,
    CustomerList,
    Delivery,
    Location,
    LoyaltyCard,
    OAuthClient,
    Order,
    PrivateRef,
)
from comptoir.orders.render import KIND
from comptoir.orders.rows import OrderRow

ORDER_IDS = f"{Order.__tablename__}_id_seq"
_COLUMNS = tuple(column.key for column in Order.__table__.columns)
_READ_COLUMNS = tuple(name for name in _COLUMNS if name != "body")
_DELIVERY_COLUMNS = tuple(column.key for column in Delivery.__table__.columns)
ORDER_READ = Query(
    select(
        *(getattr(Order, name) for name in _READ_COLUMNS),
        *(getattr(Delivery, name).label(f"d_{name}") for name in _DELIVERY_COLUMNS),
    )
    .outerjoin(Delivery, Delivery.order_id == Order.id)
    .where(Order.id == bindparam("id"), Order.location_id == bindparam("location_id"))
)
ORDER_BODY = Query(select(Order.body).where(Order.id == bindparam("id")))
CUSTOMER_REF = Query(
    select(PrivateRef.ref).where(
        PrivateRef.resource_type == bindparam("resource_type"),
        PrivateRef.resource_id == bindparam("customer_id"),
        PrivateRef.client_id == bindparam("client_id"),
    )
)
_INSERT_ORDER = insert(Order)
# The changes of an order are recorded while its row (or its delivery's) is written, right
# after `updated_at` is set: its history lies between its creation and its last update.
# The margin covers the moments between setting `updated_at` and recording the change.
HISTORY_MARGIN = timedelta(minutes=5)


class OrderRepository:
    """Orders as one request reads and writes them (`unit`); `cache` remembers who subscribes
    to new orders (PostgreSQL)."""

    def __init__(self, unit: Unit, cache: ConnectionCache | None = None) -> None:
        self.unit = unit
        self.cache = cache

    @classmethod
    def of(cls, session: AsyncSession) -> OrderRepository:
        """The repository inside a transaction its caller holds."""
        return cls(Unit.of(session))

    async def session(self) -> AsyncSession:
        return await self.unit.session()

    # --- ids ------------------------------------------------------------------------------

    async def new_ids(self, sequence: str, count: int) -> list[int]:
        """Ids of the request's new rows (`db.ids`): through its transaction when it has one
        (always on SQLite), else through the direct driver."""
        session = self.unit.open_session
        if session is None and (self.unit.is_sqlite or self.unit.direct is None):
            session = await self.unit.session()
        return await allocate(session if session is not None else self.unit.direct, sequence, count)  # type: ignore[arg-type]

    # --- reading --------------------------------------------------------------------------

    async def get(
        self, location_id: int, timezone: str, public_id: str, client_id: int
    ) -> tuple[OrderRow, Delivery | None, str | None] | None:
        """One order of a location, its delivery and `client_id`'s ref on its customer: one
        statement on the direct driver, without a transaction (plus one for the customer's
        ref when one is attached, and one for the body of an order without a view in the
        location's `timezone`)."""
        reader = self.unit.direct
        assert reader is not None
        pk = ids.decode(Order.KIND, public_id)
        row = await reader.one(ORDER_READ, id=pk, location_id=location_id) if pk is not None else None
        if row is None:
            return None
        order = OrderRow(**{name: row[name] for name in _READ_COLUMNS}, body=None)
        if order.view is None or order.view.get("tz") != timezone:  # to be rendered from its body
            order.body = (await reader.one(ORDER_BODY, id=pk))["body"]  # type: ignore[index]
        delivery = None
        if row["d_id"] is not None:
            delivery = Delivery(**{name: row[f"d_{name}"] for name in _DELIVERY_COLUMNS})
        customer_ref = None
        if order.customer_id is not None:
            found = await reader.one(
                CUSTOMER_REF, resource_type="customer", customer_id=order.customer_id, client_id=client_id
            )
            customer_ref = found["ref"] if found else None
        return order, delivery, customer_ref

    async def page(
        self,
        client_id: int | None,
        page: PageRequest,
        filters: dict[str, Any],
        *,
        location_id: int | None = None,
        account_id: int | None = None,
        timezone: str = "UTC",
        bodies_for: Any = None,
    ) -> tuple[list[OrderRow], dict[int, Delivery], dict[int, str], Page]:
        """A page of a location's (or an account's) orders, newest first, with their
        deliveries and `client_id`'s refs on their customers. Orders for which `bodies_for`
        says so get their bodies (one more query); the others are read without.

        The columns, not ORM instances: instrumenting 100 orders cost more than reading them
        (benchmarks/orders.py, list pages)."""
        session = await self.session()
        stmt = select(*(getattr(Order, name) for name in _READ_COLUMNS))
        if account_id is not None:
            stmt = stmt.where(Order.account_id == account_id)
        else:
            stmt = stmt.where(Order.location_id == location_id)
        stmt = _filtered(stmt, client_id, filters, timezone)
        keys = [Key(Order.created_at, datetime), Key(Order.id, int)]
        result = await paginate(session, stmt, keys, page, descending=True)
        orders = [OrderRow(**row._mapping, body=None) for row in result.rows]
        wanted = [order for order in orders if bodies_for is not None and bodies_for(order)]
        if wanted:
            stmt = select(Order.id, Order.body).where(Order.id.in_([o.id for o in wanted]))
            bodies: dict[int, dict[str, Any]] = {row[0]: row[1] for row in (await session.execute(stmt)).all()}
            for order in wanted:
                order.body = bodies[order.id]
        deliveries = await deliveries_of(session, [order.id for order in orders])
        attached = [order.customer_id for order in orders if order.customer_id is not None]
        customer_refs = await refs_for(session, "customer", attached, client_id) if client_id is not None else {}
        return orders, deliveries, customer_refs, result

    async def locations_of(self, account_id: int) -> dict[int, Location]:
        session = await self.session()
        return {
            location.id: location
            for location in await session.scalars(select(Location).where(Location.account_id == account_id))
        }

    async def in_location(self, location_id: int, public_id: str, *, for_update: bool = False) -> Order | None:
        pk = ids.decode(Order.KIND, public_id)
        if pk is None:
            return None
        stmt = select(Order).where(Order.id == pk, Order.location_id == location_id)
        if for_update:
            stmt = stmt.with_for_update()
        session = await self.session()
        return await session.scalar(stmt.execution_options(populate_existing=True))

    async def for_update(self, location_id: int, public_id: str) -> Order | None:
        """The order, locked for an update, after its customer: locks are always taken
        customer first, then orders (as anonymisation does), so the two cannot deadlock."""
        pk = ids.decode(Order.KIND, public_id)
        if pk is not None:
            session = await self.session()
            customer_id = await session.scalar(
                select(Order.customer_id).where(Order.id == pk, Order.location_id == location_id)
            )
            if customer_id is not None:
                await session.execute(select(Customer.id).where(Customer.id == customer_id).with_for_update())
        return await self.in_location(location_id, public_id, for_update=True)

    async def customer_ref(self, customer_id: int, client_id: int) -> str | None:
        return (await refs_for(await self.session(), "customer", [customer_id], client_id)).get(customer_id)

    # --- customers an order attaches -------------------------------------------------------

    async def customer_by_id(self, pk: int, account_id: int, location_id: int) -> tuple[Customer, CustomerList] | None:
        """A customer of a list of the account or of the location, locked."""
        stmt = (
            select(Customer, CustomerList)
            .join(CustomerList, CustomerList.id == Customer.customer_list_id)
            .where(Customer.id == pk, CustomerList.account_id == account_id)
            .where((CustomerList.location_id.is_(None)) | (CustomerList.location_id == location_id))
            .with_for_update(of=Customer)
        )
        row = (await (await self.session()).execute(stmt)).first()
        return (row[0], row[1]) if row is not None else None

    async def customer_list(self, public_id: str) -> CustomerList | None:
        return await get_by_public_id(await self.session(), CustomerList, public_id)

    async def customer_by_ref(self, customer_list_id: int, client_id: int, ref: str) -> Customer | None:
        """The customer of the list with `client_id`'s private ref `ref`, locked."""
        stmt = (
            select(Customer)
            .where(Customer.customer_list_id == customer_list_id)
            .where(has_ref("customer", Customer.id, client_id, ref))
            .with_for_update()
        )
        return await (await self.session()).scalar(stmt)

    async def cards_of(self, customer_id: int) -> list[LoyaltyCard]:
        return (await cards_of(await self.session(), [customer_id]))[customer_id]

    async def lock_customer(self, customer_id: int) -> Customer | None:
        stmt = select(Customer).where(Customer.id == customer_id).with_for_update()
        return await (await self.session()).scalar(stmt)

    async def card_of(self, customer_id: int, ref: str | None) -> LoyaltyCard | None:
        condition = LoyaltyCard.ref.is_(None) if ref is None else LoyaltyCard.ref == ref
        stmt = select(LoyaltyCard).where(LoyaltyCard.customer_id == customer_id, condition)
        return await (await self.session()).scalar(stmt)

    async def add(self, *rows: Any) -> None:
        """New rows written through the transaction (with their ids once flushed)."""
        session = await self.session()
        session.add_all(rows)
        await session.flush()

    # --- writing --------------------------------------------------------------------------

    async def insert(self, order: OrderRow, private_ref: str | None, change: events.NewChange) -> None:
        """Write a new order (its id already taken, `new_ids`), the caller's private ref on
        it, and its `order.create` change with that change's events."""
        session = self.unit.open_session
        if self.unit.is_sqlite:
            session = session or await self.session()
            await session.execute(_INSERT_ORDER, {name: getattr(order, name) for name in _COLUMNS})
            if private_ref is not None:
                await set_ref(session, KIND, order.id, order.client_id, private_ref)  # type: ignore[arg-type]
            await events.record_change(session, change)
            return
        reader = self.unit.direct
        assert reader is not None
        assert self.cache is not None
        receivers = await events.receivers(reader, change, self.cache)
        params = {f"o_{name}": getattr(order, name) for name in _COLUMNS}
        params |= outbox.write_params(change, receivers)
        params["ref"] = private_ref
        write = _create_write(private_ref is not None, bool(receivers))
        if session is None:
            await reader.write(write, **params)
            if receivers:
                signals.new_events_committed()
        else:
            await session.execute(write.clause, params)
            if receivers:
                session.info[signals.NEW_EVENTS] = True  # the worker is woken at commit

    # --- joining customers -----------------------------------------------------------------

    async def of_customer(self, customer_id: int) -> list[tuple[Order, Location]]:
        """A customer's orders with their locations, locked."""
        stmt = (
            select(Order, Location)
            .join(Location, Location.id == Order.location_id)
            .where(Order.customer_id == customer_id)
            .with_for_update(of=Order)
        )
        return [(order, location) for order, location in (await (await self.session()).execute(stmt)).all()]

    async def history(self, order: Order, last: datetime) -> list[tuple[Change, str | None]]:
        """The changes of an order and of its delivery, oldest first, with the name of the
        application that caused each (`last`: the latest of their updates)."""
        stmt = (
            select(Change, OAuthClient.name)
            .outerjoin(OAuthClient, OAuthClient.id == Change.client_id)
            .where(
                Change.created_at >= order.created_at,  # ix_changes_created_at: this order's lifetime only
                Change.created_at <= last + HISTORY_MARGIN,
                Change.location_id == order.location_id,
                Change.resource_type.in_(("order", "delivery")),
                Change.ids["order_id"].as_string() == order.public_id,
            )
            .order_by(Change.id)
        )
        return [(change, name) for change, name in (await (await self.session()).execute(stmt)).all()]

    async def delivery_of(self, order_id: int) -> Delivery | None:
        return await delivery_of(await self.session(), order_id)

    async def deliveries_of(self, order_ids: list[int]) -> dict[int, Delivery]:
        return await deliveries_of(await self.session(), order_ids)

    async def in_list_account(self, customer_list_id: int, public_id: str) -> tuple[int, int] | None:
        """(id, location id) of an order of the account of a customer list."""
        pk = ids.decode(Order.KIND, public_id)
        if pk is None:
            return None
        stmt = (
            select(Order.id, Order.location_id)
            .join(CustomerList, CustomerList.account_id == Order.account_id)
            .where(Order.id == pk, CustomerList.id == customer_list_id)
        )
        row = (await (await self.session()).execute(stmt)).first()
        return (row[0], row[1]) if row else None


def _filtered(stmt: Select[Any], client_id: int | None, filters: dict[str, Any], timezone: str) -> Select[Any]:
    if filters.get("private_ref") is not None and client_id is not None:
        stmt = stmt.where(has_ref(KIND, Order.id, client_id, filters["private_ref"]))
    if filters.get("status") is not None:
        stmt = stmt.where(Order.status == filters["status"])
    if filters.get("created_by") is not None:
        stmt = stmt.where(Order.created_by == filters["created_by"])
    if filters.get("after") is not None:  # spec 4.1: inclusive
        stmt = stmt.where(Order.created_at >= localize(filters["after"], timezone))
    if filters.get("before") is not None:  # exclusive
        stmt = stmt.where(Order.created_at < localize(filters["before"], timezone))
    if filters.get("customer_id") is not None:
        stmt = stmt.where(Order.customer_id == (ids.decode(Customer.KIND, filters["customer_id"]) or 0))
    return stmt


@cache
def _create_write(with_ref: bool, with_events: bool) -> Write:
    """The statement writing a new order, its change and, when there are any, the caller's
    private ref and the change's events: a part with nothing to write is left out rather
    than run empty (each inserting part costs the database its table and indexes)."""
    orders = Order.__table__
    types: dict[str, Any] = {f"o_{c.key}": c.type for c in orders.columns}
    types |= outbox.WRITE_TYPES
    types["ref"] = PrivateRef.__table__.c.ref.type
    order_columns = ", ".join(c.name for c in orders.columns)
    parts = [
        f"""new_order AS (
            INSERT INTO orders ({order_columns})
            VALUES ({", ".join(f":o_{c.key}" for c in orders.columns)})
        )""",  # noqa: S608 - only the models' names are written in; every value is bound
        outbox.CHANGE_CTE,
    ]
    if with_ref:
        parts.append(
            f"""new_ref AS (
            INSERT INTO private_refs (resource_type, resource_id, client_id, ref)
            VALUES ('{KIND}', :o_id, :o_client_id, :ref)
        )"""  # noqa: S608
        )
    notify = "NULL"
    if with_events:
        parts.append(outbox.EVENTS_CTE)
        notify = outbox.NOTIFY_EVENTS
    return Write(
        f"WITH {', '.join(parts)} SELECT change.id, {notify} FROM change",  # noqa: S608
        types,
    )
