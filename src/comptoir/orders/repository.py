"""All SQL of orders (docs/architecture.md "Storage"): reading one order and pages of
orders, locking an order for an update, the customers an order attaches, ids, and writing a
new order with its private ref, its change and its events.

A repository is built one way, on a unit of work (`db.unit`), and every call works for every
caller: a unit with the direct driver (the API) reads on it outside any transaction, one
made of a caller's session (the back office, the CLI, the jobs, the other features) reads
in that session.

How a new order is written is this repository's choice, by database, from the same
statement builders (the order insert here, the private-ref upsert of `core.repository`,
the change and its events of `events.repository`):
- PostgreSQL: one statement (those builders as data-modifying CTEs chained in one `WITH`):
  the order, the caller's private ref, the `order.create` change and one event per
  subscribed connection. On its own it is atomic, so without a transaction it runs on the
  direct driver in one round trip; inside the request's transaction (a customer to lock, an
  Idempotency-Key to keep) the same statement joins it.
- SQLite: the same builders, one statement each, in the write transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from functools import cache
from typing import Any

from sqlalchemy import Integer, Text, bindparam, case, cast, func, insert, literal_column, null, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.core.repository import private_ref_filter, private_ref_upsert, private_refs_of, upsert_private_ref
from comptoir.customer_lists import repository as customer_lists
from comptoir.customers import repository as customers
from comptoir.db.connection_cache import ConnectionCache
from comptoir.db.days import day_number
from comptoir.db.direct import Query, Write, within
from comptoir.db.engine import dialect_name
from comptoir.db.ids import allocate
from comptoir.db.keyset import Key, after_parameters, after_values, cursor_values, cut
from comptoir.db.unit import Unit
from comptoir.events import repository as outbox
from comptoir.events.repository import NewChange, Receivers
from comptoir.kit import ids
from comptoir.kit.decimals import exact_add
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.times import localize
from comptoir.locations import repository as locations
from comptoir.models import (
    Change,
    ChangePerson,
    Customer,
    CustomerList,
    Delivery,
    Location,
    OAuthClient,
    Order,
    PrivateRef,
    User,
)
from comptoir.orders.rows import OrderRow

KIND = Order.KIND  # the resource type of an order's private refs
ORDER_IDS = f"{Order.__tablename__}_id_seq"
_COLUMNS = tuple(column.key for column in Order.__table__.columns)
_READ_COLUMNS = tuple(name for name in _COLUMNS if name != "body")
_DELIVERY_COLUMNS = tuple(column.key for column in Delivery.__table__.columns)
# The parameter `client_id`'s private ref on the order's customer (None without a customer,
# or for a reader without refs: `client_id` None), a column of the order's row.
_CUSTOMER_REF = (
    select(PrivateRef.ref)
    .where(
        PrivateRef.resource_type == literal_column(f"'{Customer.KIND}'"),  # no parameter of its own
        PrivateRef.resource_id == Order.customer_id,
        PrivateRef.client_id == bindparam("client_id"),
    )
    .scalar_subquery()
    .label("customer_ref")
)
_PAGE_ORDER = tuple(name for name in _READ_COLUMNS if name != "view")
# An order as the API reads it (an order GET, each order of a list): with its delivery and
# the caller's ref on its customer, the view as text (`render.read_json` answers it as it is
# when it can, else decodes it).
_PAGE_COLUMNS = (
    *(getattr(Order, name) for name in _PAGE_ORDER),
    cast(Order.view, Text).label("view_text"),
    *(getattr(Delivery, name).label(f"d_{name}") for name in _DELIVERY_COLUMNS),
    _CUSTOMER_REF,
)
ORDER_READ = Query(  # one order (`get`)
    select(*_PAGE_COLUMNS)
    .outerjoin(Delivery, Delivery.order_id == Order.id)
    .where(Order.id == bindparam("id"), Order.location_id == bindparam("location_id"))
)
PAGE_KEYS = (Key(Order.created_at, datetime), Key(Order.id, int))  # newest first
# Each filter of a list (`page_query`), as a condition on the parameter of its name; the
# times are the filters' as the caller's timezone reads them (`page`).
_FILTERS: dict[str, Any] = {
    "private_ref": private_ref_filter(KIND, Order.id, bindparam("client_id"), bindparam("private_ref")),
    "status": Order.status == bindparam("status"),
    # the back office's board, in its transaction (an expanding list: not for the direct driver)
    "statuses": Order.status.in_(bindparam("statuses", expanding=True)),
    "created_by": Order.created_by == bindparam("created_by"),
    "after": Order.created_at >= bindparam("after", type_=Order.created_at.type),  # spec 4.1: inclusive
    "before": Order.created_at < bindparam("before", type_=Order.created_at.type),  # exclusive
    "customer_id": Order.customer_id == bindparam("customer_id"),
}
ORDER_BODY = Query(select(Order.body).where(Order.id == bindparam("id")))
ORDER_BODIES = Query(select(Order.id, Order.body).where(within(Order.id, "ids")))
# The order, its columns bound as `:o_<column>`: run on SQLite, a CTE of the one statement on PostgreSQL.
ORDER_INSERT = insert(Order).values({c.key: bindparam(f"o_{c.key}", type_=c.type) for c in Order.__table__.columns})
# The changes of an order are recorded while its row (or its delivery's) is written, right
# after `updated_at` is set: its history lies between its creation and its last update.
# The margin covers the moments between setting `updated_at` and recording the change.
HISTORY_MARGIN = timedelta(minutes=5)


def _order_row(row: dict[str, Any]) -> OrderRow:
    """An order of `_PAGE_COLUMNS`' row, its view as text, without its body."""
    return OrderRow(**{name: row[name] for name in _PAGE_ORDER}, view=None, view_text=row["view_text"], body=None)


class OrderRepository:
    """Orders as one unit of work (`unit`) reads and writes them; `cache`, where the caller
    has the process's connection cache, remembers who subscribes to new orders (it spares
    the one-statement insert a read)."""

    def __init__(self, unit: Unit, cache: ConnectionCache | None = None) -> None:
        self.unit = unit
        self.cache = cache

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
        self, location_id: int, public_id: str, client_id: int, body_for: Callable[[OrderRow], bool]
    ) -> tuple[OrderRow, Delivery | None, str | None] | None:
        """One order of a location (its view as text), its delivery and `client_id`'s ref on
        its customer: one statement on the direct driver, without a transaction, and one more
        for its body when `body_for` says so (an order without a view to read)."""
        pk = ids.decode(Order.KIND, public_id)
        if pk is None:
            return None
        row = await self.unit.one(ORDER_READ, id=pk, location_id=location_id, client_id=client_id)
        if row is None:
            return None
        order = _order_row(row)
        if body_for(order):
            order.body = (await self.unit.one(ORDER_BODY, id=pk))["body"]  # type: ignore[index]
        delivery = None
        if row["d_id"] is not None:
            delivery = Delivery(**{name: row[f"d_{name}"] for name in _DELIVERY_COLUMNS})
        return order, delivery, row["customer_ref"]

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

        One statement (`page_query`, compiled once for each set of filters), read as
        `Unit.all` reads (the API's location list: on the direct driver, without a transaction),
        its rows as plain values, not ORM instances: instrumenting 100 orders cost more than
        reading them (benchmarks/orders.py, list pages). The deliveries are joined and the
        refs on the customers read in the same statement, and the view is read as text
        (`OrderRow.view_text`, decoded by the caller when it needs to: `render.view_json`
        answers it as it is)."""
        given = {
            name: value
            for name, value in filters.items()
            if value is not None and (name != "private_ref" or client_id is not None)
        }
        for name in ("after", "before"):
            if name in given:
                given[name] = localize(given[name], timezone)
        if "customer_id" in given:
            given["customer_id"] = ids.decode(Customer.KIND, given["customer_id"]) or 0
        after = cursor_values(PAGE_KEYS, page)
        query = page_query(account_id is not None, tuple(sorted(given)), after is not None)
        params = {
            **given,
            **(after_values(after) if after is not None else {}),
            "owner": account_id if account_id is not None else location_id,
            "client_id": client_id,
            "limit": page.count + 1,
        }
        result = cut(await self.unit.all(query, **params), PAGE_KEYS, page, lambda row, key: row[key.column.key])
        orders, deliveries, customer_refs = [], {}, {}
        for values in result.rows:
            order = _order_row(values)
            orders.append(order)
            if values["d_id"] is not None:
                deliveries[order.id] = Delivery(**{name: values[f"d_{name}"] for name in _DELIVERY_COLUMNS})
            if values["customer_ref"] is not None:
                customer_refs[values["customer_id"]] = values["customer_ref"]
        wanted = [order for order in orders if bodies_for is not None and bodies_for(order)]
        if wanted:
            bodies = {row["id"]: row["body"] for row in await self.unit.all(ORDER_BODIES, ids=[o.id for o in wanted])}
            for order in wanted:
                order.body = bodies[order.id]
        return orders, deliveries, customer_refs, result

    async def locations_of(self, account_id: int) -> dict[int, Location]:
        """The account's locations by id (`locations.repository.of_account`)."""
        return {location.id: location for location in await locations.of_account(await self.session(), account_id)}

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
                await customers.locked(session, customer_id)
        return await self.in_location(location_id, public_id, for_update=True)

    async def customer_ref(self, customer_id: int, client_id: int) -> str | None:
        return (await self._customer_refs([customer_id], client_id)).get(customer_id)

    async def _customer_refs(self, customer_ids: list[int], client_id: int) -> dict[int, str]:
        """{customer id: `client_id`'s private ref on it} (`core.repository`)."""
        if not customer_ids:
            return {}
        return await private_refs_of(await self.session(), "customer", customer_ids, client_id)

    # --- customers an order attaches -------------------------------------------------------

    # the statements are the customers' and the lists' own repositories'; these run them in
    # the order's unit of work

    async def customer_by_id(self, pk: int, account_id: int, location_id: int) -> tuple[Customer, CustomerList] | None:
        """A customer of a list of the account or of the location, locked."""
        return await customers.locked_with_list(await self.session(), pk, account_id, location_id)

    async def customer_list(self, public_id: str) -> CustomerList | None:
        return await customer_lists.by_public_id(await self.session(), public_id)

    async def customer_by_ref(self, customer_list_id: int, client_id: int, ref: str) -> Customer | None:
        """The customer of the list with `client_id`'s private ref `ref`, locked."""
        return await customers.locked_by_ref(await self.session(), customer_list_id, client_id, ref)

    async def lock_customer(self, customer_id: int) -> Customer | None:
        return await customers.locked(await self.session(), customer_id)

    # --- writing --------------------------------------------------------------------------

    async def insert(self, order: OrderRow, private_ref: str | None, change: NewChange, receivers: Receivers) -> None:
        """Write a new order (its id already taken, `new_ids`), the caller's private ref on
        it, and its `order.create` change with one event per receiver, as `receivers`
        (`events.receivers`) decides just before they are written: in the unit's
        transaction, or through the direct driver and the connection cache for the one
        statement run on its own."""
        values = {f"o_{name}": getattr(order, name) for name in _COLUMNS}
        session = self.unit.open_session
        reader = self.unit.direct
        if self.unit.is_sqlite:
            session = session or await self.session()
            await session.execute(ORDER_INSERT, values)
            if private_ref is not None:
                await upsert_private_ref(session, KIND, order.id, order.client_id, private_ref, None)  # type: ignore[arg-type]
            change.id = await outbox.insert_change(session, change)
            await outbox.insert_events(session, change, await receivers(session, change, None))
            return
        if session is None and reader is None:
            session = await self.session()
        if reader is not None and (session is None or self.cache is not None):
            found = await receivers(reader, change, self.cache)
        else:
            assert session is not None
            found = await receivers(session, change, None)
        params = values | outbox.write_params(change, found)
        params["ref"] = private_ref
        write = _create_write(private_ref is not None, bool(found))
        if session is None:
            assert reader is not None
            await reader.write(write, **params)
        else:
            await session.execute(write.clause, params)
        if found:
            await outbox.wake_workers(session, notified=True)  # the statement sent NOTIFY_EVENTS
        await outbox.announce(session, change)

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

    async def history(self, order: Order, last: datetime) -> list[tuple[Change, str | None, str | None]]:
        """The changes of an order and of its delivery, oldest first, with the name of the
        application that caused each and the email of the person who made it from the back
        office (`last`: the latest of their updates)."""
        stmt = (
            select(Change, OAuthClient.name, User.email)
            .outerjoin(OAuthClient, OAuthClient.id == Change.client_id)
            .outerjoin(ChangePerson, ChangePerson.change_id == Change.id)
            .outerjoin(User, User.id == ChangePerson.user_id)
            .where(
                Change.created_at >= order.created_at,  # ix_changes_created_at: this order's lifetime only
                Change.created_at <= last + HISTORY_MARGIN,
                Change.location_id == order.location_id,
                Change.resource_type.in_(("order", "delivery")),
                Change.ids["order_id"].as_string() == order.public_id,
            )
            .order_by(Change.id)
        )
        rows = (await (await self.session()).execute(stmt)).all()
        return [(change, name, email) for change, name, email in rows]

    async def delivery_of(self, order_id: int) -> Delivery | None:
        """The order's delivery, if it has one."""
        return (await self.deliveries_of([order_id])).get(order_id)

    async def deliveries_of(self, order_ids: list[int]) -> dict[int, Delivery]:
        """{order id: its delivery} for those of the orders that have one."""
        if not order_ids:
            return {}
        rows = await (await self.session()).scalars(select(Delivery).where(Delivery.order_id.in_(order_ids)))
        return {delivery.order_id: delivery for delivery in rows}

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


@cache
def page_query(of_account: bool, filters: tuple[str, ...], after: bool) -> Query:
    """The statement of a page of orders (`OrderRepository.page`): an account's (else a
    location's: the parameter `owner`), with the conditions of `filters` (`_FILTERS`), after
    the cursor's key (`db.keyset.after_parameters`) when there is one, `limit` rows, newest
    first. Built and compiled once for each shape, whatever the values."""
    owner = Order.account_id if of_account else Order.location_id
    stmt = (
        select(*_PAGE_COLUMNS)
        .outerjoin(Delivery, Delivery.order_id == Order.id)
        .where(owner == bindparam("owner"), *(_FILTERS[name] for name in filters))
    )
    if after:
        stmt = stmt.where(after_parameters(PAGE_KEYS, descending=True))
    order = [key.column.desc() for key in PAGE_KEYS]
    return Query(stmt.order_by(*order).limit(bindparam("limit", type_=Integer)))


@cache
def _create_write(with_ref: bool, with_events: bool) -> Write:
    """The statement writing a new order, its change and, when there are any, the caller's
    private ref and the change's events: the statement builders a session runs one by one
    (`ORDER_INSERT`, `core.repository.private_ref_upsert`, `events.repository`'s change and
    events), chained as data-modifying CTEs. A part with nothing to write is left out rather
    than run empty (each inserting part costs the database its table and indexes)."""
    change = outbox.change_cte()
    parts = [ORDER_INSERT.cte("new_order")]
    if with_ref:
        order_id, client_id = (
            bindparam("o_id", type_=Order.id.type),
            bindparam("o_client_id", type_=Order.client_id.type),
        )
        ref = bindparam("ref", type_=PrivateRef.ref.type)
        parts.append(private_ref_upsert("postgresql", KIND, order_id, client_id, ref).cte("new_ref"))
    notify: Any = null()
    if with_events:
        parts.append(outbox.events_cte(change))
        notify = outbox.NOTIFY_EVENTS
    return Write.of(select(change.c.id, notify).add_cte(*parts))


# --- figures per local day (the back office's chart) --------------------------------------


async def daily_figures(
    session: AsyncSession, location_id: int, starts: list[datetime], uncounted: tuple[str, ...]
) -> dict[int, tuple[int, Decimal]]:
    """One statement: per local day (numbered by `db.days.day_number` over `starts`), the
    orders the location received and the sum of the totals of those whose status is not in
    `uncounted`; a day without orders is absent. PostgreSQL adds the NUMERIC totals; SQLite
    keeps decimals as text and its SUM goes through a double, so there each day's totals
    come joined and are added here, exactly."""
    rows = (
        select(day_number(Order.created_at, starts).label("day"), Order.status, Order.total)
        .where(Order.location_id == location_id, Order.created_at >= starts[0], Order.created_at < starts[-1])
        .subquery()
    )
    counted = case((rows.c.status.in_(uncounted), None), else_=rows.c.total)
    exact = dialect_name(session) == "postgresql"
    revenue = func.sum(counted) if exact else func.group_concat(counted, " ")
    stmt = select(rows.c.day, func.count(), revenue).group_by(rows.c.day)
    figures: dict[int, tuple[int, Decimal]] = {}
    for day, orders, total in (await session.execute(stmt)).all():
        if exact:
            figures[day] = (orders, Decimal(total) if total is not None else Decimal(0))
        else:
            amount = Decimal(0)
            for text in (total or "").split():
                amount = exact_add(amount, Decimal(text))
            figures[day] = (orders, amount)
    return figures
