"""Catalogs (spec 2.4, 4.3) and who may use them (spec 5.1, decisions.md "Access").

A catalog is readable by a connection at its level (a location token: catalogs of its
location and account-level ones of its account; an account token: every catalog of the
account) when it is the catalog bound to the connection and the scope has `catalog.*`, or
when the scope has `all_catalogs.*`. Anything else is a 404, whether or not it exists.

Names are unique within a location (`uq_catalogs_location_id_name`) and, across the
account, held by the `name_claims` rule shared with customer lists (`comptoir.core.names`).

The content is stored as it is read (`models.catalog_content`): `GET /catalogs/:id` joins
stored JSON text, and a PUT with `data` replaces every item in the same transaction.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Select, and_, bindparam, delete, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.auth.context import Ctx
from comptoir.catalogs import content as catalog_content
from comptoir.core import names
from comptoir.db.direct import FastReader, Query
from comptoir.db.ids import allocate
from comptoir.errors import FieldError, FieldErrors, Forbidden, NotFound, Unauthorized, Unprocessable, check_text
from comptoir.kit import clock, gcpause, ids
from comptoir.kit.jsonutil import dumps, dumps_str
from comptoir.kit.pagination import Key, Page, PageRequest, paginate
from comptoir.kit.times import render_datetime
from comptoir.models import Account, Catalog, CatalogImage, Location, PrivateRef
from comptoir.models.catalog_content import CATALOG_ITEM_IDS, CatalogContent, CatalogItem
from comptoir.models.locations import location_public_id

KIND = "catalog"
BOUND, ALL = "catalog", "all_catalogs"
READ_NEED = f"{BOUND}.read|{ALL}.read"
WRITE_NEED = f"{BOUND}.write|{ALL}.write"
CREATE_NEED = f"{ALL}.write"  # spec 5.1: only all_catalogs creates catalogs
ACCOUNT_LEVEL_REFUSAL = "A location-level token cannot {action} an account-level catalog"
# The kinds stored as rows, by section (skus live in their product, options in their list)
ROW_KINDS = {
    "categories": "category",
    "products": "product",
    "option_lists": "option_list",
    "deals": "deal",
    "discounts": "discount",
    "charges": "charge",
}
assert tuple(ROW_KINDS) == catalog_content.SECTIONS[1:]  # `data` is joined in this order
EMPTY_DATA = dumps_str({section: [] for section in catalog_content.SECTIONS})


@dataclass(frozen=True, slots=True)
class CatalogInReach:
    row: Catalog
    timezone: str  # its location's, or UTC for an account-level catalog (decisions.md "Fields")
    currency: str  # its account's: the currency of every price in it
    location_number: int | None

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def public_id(self) -> str:
        return self.row.public_id


def _select() -> Select[Any]:
    return (
        select(Catalog, Location.timezone, Account.currency, Location.number)
        .join(Account, Account.id == Catalog.account_id)
        .outerjoin(Location, Location.id == Catalog.location_id)
    )


def _found(row: Any) -> CatalogInReach:
    return CatalogInReach(row[0], row[1] or "UTC", row[2], row[3])


def render_catalog(found: CatalogInReach) -> dict[str, Any]:
    """The catalog without `data` (lists, `hide_data`): `location_id` for a location-level
    catalog, `account_id` for an account-level one, the other null (spec 2.4)."""
    row = found.row
    at_location = found.location_number is not None
    return {
        "id": row.public_id,
        "name": row.name,
        "created_at": render_datetime(row.created_at, found.timezone),
        "location_id": location_public_id(row.account_id, found.location_number) if at_location else None,  # type: ignore[arg-type]
        "account_id": None if at_location else ids.encode("account", row.account_id),
    }


def with_data(head: dict[str, Any], data: str) -> bytes:
    """The catalog's JSON with its stored `data` text spliced in, never parsed."""
    return b"".join((dumps(head)[:-1], b',"data":', data.encode(), b"}"))


# --- access -------------------------------------------------------------------------------


def may(ctx: Ctx, row: Catalog, right: str) -> bool:
    """spec 5.1: `catalog` reaches the bound catalog, `all_catalogs` every catalog at the
    connection's level; write implies read."""
    return ctx.may_use(BOUND, row, right)


async def catalog_in_reach(
    session: AsyncSession, ctx: Ctx, public_id: str, *, for_update: bool = False
) -> CatalogInReach:
    """The catalog behind `public_id` if the connection may read it; 404 otherwise."""
    pk = ids.decode(Catalog.KIND, public_id)
    row = None
    if pk is not None:
        stmt = _select().where(Catalog.id == pk)
        if for_update:
            stmt = stmt.with_for_update(of=Catalog).execution_options(populate_existing=True)
        row = (await session.execute(stmt)).first()
    if row is None or not may(ctx, row[0], "read"):
        raise NotFound(KIND, public_id)
    return _found(row)


def _check_modify(ctx: Ctx, found: CatalogInReach, action: str) -> None:
    """Update or delete (spec 4.3, 5.1; decisions.md "Access"): a location token may update
    the account-level catalog it is bound to with `catalog.write`; every other update or
    delete of an account-level catalog with a location token is a 401."""
    row = found.row
    bound_write = ctx.catalog_id == row.id and ctx.scope.allows(BOUND, "write")
    if ctx.level == "location" and row.location_id is None and not (action == "update" and bound_write):
        raise Unauthorized(ACCOUNT_LEVEL_REFUSAL.format(action=action))
    if not (bound_write or ctx.scope.allows(ALL, "write")):
        raise Forbidden(f"The connection's scope ({ctx.scope}) does not allow this request: it needs {BOUND}.write")


# --- reading ------------------------------------------------------------------------------


class _DataCache:
    """The `data` of recently read catalogs, as bytes, by catalog and content tag: a read
    checks the tag (one small query) and skips the megabytes of the stored text. Each process
    keeps its own; a store anywhere draws a new tag, so nothing stale is ever served."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.entries: OrderedDict[int, tuple[int, bytes, str]] = OrderedDict()  # id -> tag, data, digest

    def get(self, catalog_id: int, tag: int) -> tuple[bytes, str] | None:
        found = self.entries.get(catalog_id)
        if found is None or found[0] != tag:
            return None
        self.entries.move_to_end(catalog_id)
        return found[1], found[2]

    def put(self, catalog_id: int, tag: int, data: bytes) -> str:
        digest = hashlib.blake2b(data, digest_size=12).hexdigest()
        old = self.entries.pop(catalog_id, None)
        if old is not None:
            self.size -= len(old[1])
        if len(data) <= self.max_bytes:
            self.entries[catalog_id] = (tag, data, digest)
            self.size += len(data)
            while self.size > self.max_bytes:
                _, (_, dropped, _) = self.entries.popitem(last=False)
                self.size -= len(dropped)
        return digest


DATA_CACHE = _DataCache(max_bytes=96 * 1024 * 1024)


async def get_catalog(
    session: AsyncSession, ctx: Ctx, public_id: str, *, hide_data: bool
) -> tuple[bytes, dict[str, str]]:
    """The catalog's JSON, and its ETag when it is the whole catalog (known from the cached
    data's digest, so the 10 MB body is not hashed again at every read)."""
    found = await catalog_in_reach(session, ctx, public_id)
    head = render_catalog(found)
    if hide_data:
        return dumps(head), {}
    tag = await session.scalar(select(CatalogContent.tag).where(CatalogContent.catalog_id == found.id))
    if tag is None:  # created before content was stored: empty
        return with_data(head, EMPTY_DATA), {}
    cached = DATA_CACHE.get(found.id, tag)
    if cached is None:
        row = (
            await session.execute(
                select(CatalogContent.data, CatalogContent.tag).where(CatalogContent.catalog_id == found.id)
            )
        ).one()
        data = row.data.encode()
        cached = data, DATA_CACHE.put(found.id, row.tag, data)
    data, digest = cached
    head_bytes = dumps(head)
    etag = hashlib.blake2b(head_bytes + digest.encode(), digest_size=12).hexdigest()
    return b"".join((head_bytes[:-1], b',"data":', data, b"}")), {"ETag": f'"{etag}"'}


async def list_catalogs(
    session: AsyncSession, ctx: Ctx, *, account_id: int, location_id: int | None
) -> list[dict[str, Any]]:
    """spec 4.3: a location's catalogs include the account-level ones; an account's are its
    account-level ones. Only those the connection may read; oldest first."""
    stmt = _select().where(Catalog.account_id == account_id)
    if location_id is None:
        stmt = stmt.where(Catalog.location_id.is_(None))
    else:
        stmt = stmt.where(or_(Catalog.location_id.is_(None), Catalog.location_id == location_id))
    if not ctx.scope.allows(ALL):
        stmt = stmt.where(Catalog.id == ctx.catalog_id)
    rows = (await session.execute(stmt.order_by(Catalog.id))).all()
    return [render_catalog(_found(row)) for row in rows]


ITEM_READ = Query(
    select(Catalog.id, Catalog.account_id, Catalog.location_id, CatalogItem.body)
    .outerjoin(
        CatalogItem,
        and_(
            CatalogItem.catalog_id == Catalog.id,
            CatalogItem.kind == bindparam("kind"),
            CatalogItem.id == bindparam("item_id"),
        ),
    )
    .where(Catalog.id == bindparam("catalog_id"))
)


async def fast_item(reader: FastReader, ctx: Ctx, catalog_id: str, kind: str, public_id: str) -> str:
    """One category, product, option list, deal, discount or charge of a readable catalog, as
    stored, in one statement without a session (a menu app reads products one by one); 404
    when it is not in that catalog."""
    catalog_pk, item_pk = ids.decode(Catalog.KIND, catalog_id), ids.decode(kind, public_id)
    row = await reader.one(ITEM_READ, catalog_id=catalog_pk, kind=kind, item_id=item_pk or 0) if catalog_pk else None
    if row is None or not may(ctx, SimpleNamespace(**row), "read"):
        raise NotFound(KIND, catalog_id)
    if row["body"] is None:
        raise NotFound(kind, public_id)
    return row["body"]


async def list_items(
    session: AsyncSession, ctx: Ctx, catalog_id: str, kind: str, page: PageRequest | None
) -> tuple[list[str], Page]:
    """A catalog's items of `kind` in read order (spec 2.4 rule 4), a page of them or all."""
    found = await catalog_in_reach(session, ctx, catalog_id)
    stmt = select(CatalogItem.position, CatalogItem.body).where(
        CatalogItem.catalog_id == found.id, CatalogItem.kind == kind
    )
    if page is None:
        rows = (await session.execute(stmt.order_by(CatalogItem.position))).all()
        return [row.body for row in rows], Page(rows=list(rows), next_cursor=None)
    result = await paginate(session, stmt, [Key(CatalogItem.position, int)], page)
    return [row.body for row in result.rows], result


# --- writing ------------------------------------------------------------------------------


def _name_taken(name: str) -> Unprocessable:
    return Unprocessable(
        FieldError("name", f"{name!r} is already the name of another catalog of this location or account")
    )


def _check_name(errors: FieldErrors, name: Any) -> None:
    if name is not None and not isinstance(name, str):
        errors.add("name", "must be a string")
        return
    check_text(errors, "name", name, 255, required=True)


async def insert_catalog(session: AsyncSession, *, account: Any, location: Any | None, name: str) -> Catalog:
    """A new empty catalog at location level (`location`) or account level, its name claimed
    (spec 2.4 rule 2); no event."""
    errors = FieldErrors()
    _check_name(errors, name)
    errors.raise_if_any()
    row = Catalog(
        name=name, account_id=account.id, location_id=location.id if location else None, created_at=clock.now()
    )
    await names.insert_named(session, KIND, row, lambda: _name_taken(name))
    return row


def _read_content(errors: FieldErrors, data: Any, currency: str, images: set[str]) -> catalog_content.Content | None:
    try:
        return catalog_content.read_upload(data, currency, images)
    except catalog_content.Invalid as exc:
        errors.extend(exc.errors)
        return None


async def _store_content(session: AsyncSession, catalog_id: int, content: catalog_content.Content | None) -> str:
    """Replace the catalog's content: new ids, every item row, the `data` text; returns it."""
    await session.execute(delete(CatalogItem).where(CatalogItem.catalog_id == catalog_id))
    data_text, sku_refs, option_refs, image_ids = EMPTY_DATA, [], [], []
    if content is not None:
        counts = content.counts()
        numbers = await allocate(session, CATALOG_ITEM_IDS.name, sum(counts.values()))
        by_kind: dict[str, list[int]] = {}
        for kind, count in counts.items():
            by_kind[kind], numbers = numbers[:count], numbers[count:]
        catalog_content.assign_ids(content, {kind: ids.encode_many(kind, ns) for kind, ns in by_kind.items()})
        bodies = {section: [dumps_str(item) for item in content.data[section]] for section in ROW_KINDS}
        rows = [
            (kind, by_kind[kind][i], catalog_id, i, body)
            for section, kind in ROW_KINDS.items()
            for i, body in enumerate(bodies[section])
        ]
        await _insert_items(session, rows)
        # `data` is those same bodies joined (each item serialised once), in the read order
        parts = ['{"variants":', dumps_str(content.data["variants"])]
        for section in ROW_KINDS:
            parts += [',"', section, '":[', ",".join(bodies[section]), "]"]
        data_text = "".join([*parts, "}"])
        sku_refs, option_refs = sorted(content.sku_refs), sorted(content.option_refs)
        image_ids = sorted(content.image_ids)
    tag = secrets.randbits(62)
    values = {
        "data": data_text,
        "sku_refs": sku_refs,
        "option_refs": option_refs,
        "image_ids": image_ids,
        "updated_at": clock.now(),
    }
    stored = await session.execute(
        update(CatalogContent).where(CatalogContent.catalog_id == catalog_id).values(**values, tag=tag)
    )
    if stored.rowcount == 0:  # type: ignore[attr-defined]
        await session.execute(insert(CatalogContent).values(catalog_id=catalog_id, tag=tag, **values))
    return data_text


ITEM_COLUMNS = ("kind", "id", "catalog_id", "position", "body")


async def _insert_items(session: AsyncSession, rows: list[tuple[Any, ...]]) -> None:
    """Every item row of a catalog: PostgreSQL's COPY on the session's own connection (in its
    transaction), five times faster than a multi-row INSERT for 10,000 products; SQLite's
    executemany otherwise."""
    if not rows:
        return
    if session.bind.dialect.name == "postgresql":
        connection = await (await session.connection()).get_raw_connection()
        await connection.driver_connection.copy_records_to_table(  # type: ignore[union-attr]
            CatalogItem.__tablename__, records=rows, columns=ITEM_COLUMNS
        )
        return
    await session.execute(insert(CatalogItem), [dict(zip(ITEM_COLUMNS, row, strict=True)) for row in rows])


async def _record(session: AsyncSession, ctx: Ctx | None, found: CatalogInReach, event_type: str) -> None:
    """catalog.create/update/delete, with no state (spec 6.3 item 3); the ids name the
    catalog and what it belongs to: its location, or its account (`render_catalog`)."""
    row = found.row
    owner = render_catalog(found)
    owner_ids = {"location_id": owner["location_id"]} if owner["location_id"] else {"account_id": owner["account_id"]}
    await events.record(
        session,
        resource_type=KIND,
        event_type=event_type,
        ids={"catalog_id": row.public_id, **owner_ids},
        account_id=row.account_id,
        location_id=row.location_id,
        catalog_id=row.id,
        timezone=found.timezone,  # README "API notes": a location-level catalog's events are in its timezone
        ctx=ctx,
    )


async def new_catalog(
    session: AsyncSession, ctx: Ctx | None, *, account: Any, location: Any | None, name: str
) -> Catalog:
    """An empty catalog and its `catalog.create` (the OAuth pages' "A new catalog")."""
    row = await insert_catalog(session, account=account, location=location, name=name)
    await _store_content(session, row.id, None)
    timezone = location.timezone if location else "UTC"
    found = CatalogInReach(row, timezone, account.currency, location.number if location else None)
    await _record(session, ctx, found, "create")
    return row


async def create_catalog(
    session: AsyncSession,
    ctx: Ctx | None,
    *,
    account: Any,  # Account or AccountView
    location: Any | None,  # Location or LocationView
    name: Any,
    data: Any = None,
) -> bytes:
    """POST .../catalogs (spec 4.3): the catalog, empty or with `data`; `catalog.create`.
    Every error of the name and of the data is named in one 422."""
    errors = FieldErrors()
    _check_name(errors, name)
    with gcpause.paused():
        content = _read_content(errors, data, account.currency, set()) if data is not None else None
        errors.raise_if_any()
        row = await insert_catalog(session, account=account, location=location, name=name)
        data_text = await _store_content(session, row.id, content)
    timezone = location.timezone if location else "UTC"
    found = CatalogInReach(row, timezone, account.currency, location.number if location else None)
    await _record(session, ctx, found, "create")
    return with_data(render_catalog(found), data_text)


async def replace_catalog(session: AsyncSession, ctx: Ctx, public_id: str, *, name: Any, data: Any) -> bytes:
    """PUT /catalogs/:id (spec 4.3, 2.4 rule 3): a new name and/or, when `data` is present,
    all new content; the previous catalog stays whole when anything is refused."""
    found = await catalog_in_reach(session, ctx, public_id, for_update=True)
    _check_modify(ctx, found, "update")
    row = found.row
    errors = FieldErrors()
    if name is not None:
        _check_name(errors, name)
    images = await _image_ids(session, row.id)
    with gcpause.paused():
        content = _read_content(errors, data, found.currency, images) if data is not None else None
    errors.raise_if_any()
    renamed = name is not None and name != row.name
    if renamed:
        await names.rename(session, KIND, row, name, lambda: _name_taken(name))
    if data is not None:
        with gcpause.paused():
            data_text = await _store_content(session, row.id, content)
    else:
        data_text = await session.scalar(select(CatalogContent.data).where(CatalogContent.catalog_id == row.id))
    if renamed or data is not None:  # a PUT changing nothing records nothing
        await _record(session, ctx, found, "update")
    return with_data(render_catalog(found), data_text or EMPTY_DATA)


async def _image_ids(session: AsyncSession, catalog_id: int) -> set[str]:
    """The public ids of the catalog's images: what its content may point to."""
    rows = await session.scalars(select(CatalogImage.id).where(CatalogImage.catalog_id == catalog_id))
    return set(ids.encode_many(CatalogImage.KIND, list(rows)))


async def delete_catalog(session: AsyncSession, ctx: Ctx, public_id: str) -> bytes:
    """DELETE /catalogs/:id (spec 4.3): the catalog and all its content; `catalog.delete`
    is recorded first, so connections bound to it still receive it. Answers the catalog as
    it was, with its data."""
    found = await catalog_in_reach(session, ctx, public_id, for_update=True)
    _check_modify(ctx, found, "delete")
    row = found.row
    data = await session.scalar(select(CatalogContent.data).where(CatalogContent.catalog_id == row.id))
    body = with_data(render_catalog(found), data or EMPTY_DATA)
    await _record(session, ctx, found, "delete")
    images = select(CatalogImage.id).where(CatalogImage.catalog_id == row.id)
    await session.execute(
        delete(PrivateRef).where(PrivateRef.resource_type == CatalogImage.KIND, PrivateRef.resource_id.in_(images))
    )
    await names.release(session, KIND, row.account_id, row.name)
    await session.execute(delete(Catalog).where(Catalog.id == row.id))
    return body
