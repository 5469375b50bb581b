"""Every statement about catalogs: the catalog with what rendering it needs, its stored
content (`models.catalog_content`: the `data` text and one row per item), its images and
their bytes, and its inventory at each location. The rules, and who may see what, are the
services' (`catalogs.service`, `.images`, `.inventory`).

The content is stored as it is read: `GET /catalogs/:id` joins stored JSON text (through a
per-process cache checked against the content's tag), one item is read in one statement
without a session (`fast_item`), and a store replaces every item row in the transaction.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import and_, bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.catalogs import content as catalog_content
from comptoir.catalogs.image_files import ImageKey
from comptoir.core import levels
from comptoir.core.levels import InReach
from comptoir.core.repository import release_name
from comptoir.db.direct import FastReader, Query
from comptoir.db.engine import dialect_name, rowcount
from comptoir.db.ids import allocate
from comptoir.db.keyset import Key, paginate
from comptoir.kit import clock, ids
from comptoir.kit.pagination import Page, PageRequest
from comptoir.models import Catalog, CatalogImage, ImageData, InventoryEntry, Location, PrivateRef
from comptoir.models.catalog_content import CATALOG_ITEM_IDS, CatalogContent, CatalogItem

KIND = "catalog"


CatalogInReach = InReach[Catalog]


# --- catalogs -----------------------------------------------------------------------------


async def find_catalog(session: AsyncSession, pk: int, *, for_update: bool = False) -> CatalogInReach | None:
    """Catalog `pk`, locked for the transaction with `for_update`; None when there is none."""
    return await levels.find(session, Catalog, pk, for_update=for_update)


async def catalog_row(session: AsyncSession, pk: int) -> Catalog | None:
    """The catalog row alone (inventory needs no rendering)."""
    return await session.get(Catalog, pk)


async def catalogs_of(
    session: AsyncSession, *, account_id: int, location_id: int | None, every: bool, bound_id: int | None
) -> list[CatalogInReach]:
    """A location's catalogs and its account's account-level ones, or, with no
    `location_id`, an account's account-level catalogs; oldest first. Only `bound_id` unless
    `every`."""
    stmt = levels.held_by(Catalog, account_id=account_id, location_id=location_id, every=every, bound_id=bound_id)
    rows = (await session.execute(stmt.order_by(Catalog.id))).all()
    return [levels.found(row) for row in rows]


async def delete_catalog(session: AsyncSession, row: Catalog) -> None:
    """The catalog with everything in it (foreign keys cascade), the private refs set on its
    images, and its name's claim."""
    images = select(CatalogImage.id).where(CatalogImage.catalog_id == row.id)
    await session.execute(
        delete(PrivateRef).where(PrivateRef.resource_type == CatalogImage.KIND, PrivateRef.resource_id.in_(images))
    )
    await release_name(session, KIND, row.account_id, row.name)
    await session.execute(delete(Catalog).where(Catalog.id == row.id))


# --- content: reading ---------------------------------------------------------------------


async def content_tag(session: AsyncSession, catalog_id: int) -> int:
    """The tag of the catalog's stored content, new at every store (what a cached read is
    checked against: `catalogs.read_cache`). Every catalog has its content row (`store_content`
    at its creation)."""
    stmt = select(CatalogContent.tag).where(CatalogContent.catalog_id == catalog_id)
    return (await session.execute(stmt)).scalar_one()


async def data_and_tag(session: AsyncSession, catalog_id: int) -> tuple[str, int]:
    """The catalog's stored `data` text and its tag, read together."""
    stmt = select(CatalogContent.data, CatalogContent.tag).where(CatalogContent.catalog_id == catalog_id)
    row = (await session.execute(stmt)).one()
    return row.data, row.tag


async def stored_data(session: AsyncSession, catalog_id: int) -> str:
    """The stored `data` text, read through the session."""
    stmt = select(CatalogContent.data).where(CatalogContent.catalog_id == catalog_id)
    return (await session.execute(stmt)).scalar_one()


async def content_refs(session: AsyncSession, catalog_id: int) -> dict[str, set[str]]:
    """The sku and option refs of the stored content (what inventory entries may name)."""
    row = (
        await session.execute(
            select(CatalogContent.sku_refs, CatalogContent.option_refs).where(CatalogContent.catalog_id == catalog_id)
        )
    ).one()
    return {"sku": set(row.sku_refs), "option": set(row.option_refs)}


class FastItem(NamedTuple):
    """What `fast_item` reads: the catalog's binding (`id`, `account_id`, `location_id`, as
    access checks read them) and the item's stored body (None: no such item)."""

    id: int
    account_id: int
    location_id: int | None
    body: str | None


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


async def fast_item(reader: FastReader, catalog_id: int, kind: str, item_id: int) -> FastItem | None:
    """Catalog `catalog_id` and its item (`kind`, `item_id`) as stored, in one statement
    without a session; None when there is no such catalog."""
    row = await reader.one(ITEM_READ, catalog_id=catalog_id, kind=kind, item_id=item_id)
    if row is None:
        return None
    return FastItem(row["id"], row["account_id"], row["location_id"], row["body"])


async def items(session: AsyncSession, catalog_id: int, kind: str, page: PageRequest | None) -> tuple[list[str], Page]:
    """The stored bodies of the catalog's items of `kind` in read order, a page or all."""
    stmt = select(CatalogItem.position, CatalogItem.body).where(
        CatalogItem.catalog_id == catalog_id, CatalogItem.kind == kind
    )
    if page is None:
        rows = (await session.execute(stmt.order_by(CatalogItem.position))).all()
        return [row.body for row in rows], Page(rows=list(rows), next_cursor=None)
    result = await paginate(session, stmt, [Key(CatalogItem.position, int)], page)
    return [row.body for row in result.rows], result


# --- content: storing ---------------------------------------------------------------------


async def new_item_ids(session: AsyncSession, counts: dict[str, int]) -> dict[str, list[int]]:
    """New ids for a content's entities, by kind, as many as `counts` asks."""
    numbers = await allocate(session, CATALOG_ITEM_IDS.name, sum(counts.values()))
    by_kind: dict[str, list[int]] = {}
    for kind, count in counts.items():
        by_kind[kind], numbers = numbers[:count], numbers[count:]
    return by_kind


async def store_content(
    session: AsyncSession, catalog_id: int, stored: catalog_content.Stored | None
) -> tuple[str, int]:
    """Replace the catalog's content with `stored` (None: empty): every item row, the `data`
    text and the refs other features read; returns the `data` text and its new tag."""
    await session.execute(delete(CatalogItem).where(CatalogItem.catalog_id == catalog_id))
    stored = stored or catalog_content.EMPTY
    await _insert_items(session, catalog_id, stored.rows)
    tag = secrets.randbits(62)
    values = {
        "data": stored.data_text,
        "sku_refs": stored.sku_refs,
        "option_refs": stored.option_refs,
        "image_ids": stored.image_ids,
        "updated_at": clock.now(),
    }
    written = await session.execute(
        update(CatalogContent).where(CatalogContent.catalog_id == catalog_id).values(**values, tag=tag)
    )
    if rowcount(written) == 0:
        await session.execute(insert(CatalogContent).values(catalog_id=catalog_id, tag=tag, **values))
    return stored.data_text, tag


ITEM_COLUMNS = ("kind", "id", "catalog_id", "position", "body")


async def _insert_items(session: AsyncSession, catalog_id: int, rows: list[tuple[str, int, int, str]]) -> None:
    """Every item row of a catalog (`rows`: kind, id, position, JSON): PostgreSQL's COPY on the
    session's own connection (in its transaction), five times faster than a multi-row INSERT
    for 10,000 products, its records made as it reads them; SQLite's executemany otherwise."""
    if not rows:
        return
    if dialect_name(session) == "postgresql":
        connection = await (await session.connection()).get_raw_connection()
        await connection.driver_connection.copy_records_to_table(  # type: ignore[union-attr]
            CatalogItem.__tablename__,
            records=((kind, pk, catalog_id, position, body) for kind, pk, position, body in rows),
            columns=ITEM_COLUMNS,
        )
        return
    await session.execute(
        insert(CatalogItem),
        [
            dict(zip(ITEM_COLUMNS, (kind, pk, catalog_id, position, body), strict=True))
            for kind, pk, position, body in rows
        ],
    )


# --- images -------------------------------------------------------------------------------


class DatabaseImageStore:
    """Image bytes in the `image_data` table, in the caller's transaction (deleted with their
    image or catalog by the foreign keys too): `images.ImageStore` on the database."""

    name = "database"

    async def put(self, session: AsyncSession | None, key: ImageKey, data: bytes) -> None:
        assert session is not None
        session.add(ImageData(image_id=key.id, data=data))
        await session.flush()

    async def get(self, session: AsyncSession | None, key: ImageKey) -> bytes | None:
        assert session is not None
        return await session.scalar(select(ImageData.data).where(ImageData.image_id == key.id))

    async def delete(self, session: AsyncSession | None, keys: list[ImageKey]) -> None:
        assert session is not None
        await session.execute(delete(ImageData).where(ImageData.image_id.in_([key.id for key in keys])))


async def image_public_ids(session: AsyncSession, catalog_id: int) -> set[str]:
    """The public ids of the catalog's images."""
    rows = await session.scalars(select(CatalogImage.id).where(CatalogImage.catalog_id == catalog_id))
    return set(ids.encode_many(CatalogImage.KIND, list(rows)))


async def images_in_use(session: AsyncSession, catalog_id: int) -> set[str]:
    """The public ids of the images the catalog's stored content points to."""
    used = await session.scalar(select(CatalogContent.image_ids).where(CatalogContent.catalog_id == catalog_id))
    return set(used or ())


async def insert_image(session: AsyncSession, image: CatalogImage) -> None:
    """A new image, flushed: it has its id."""
    session.add(image)
    await session.flush()


async def images_of(session: AsyncSession, catalog_id: int) -> list[CatalogImage]:
    """The catalog's images, oldest first."""
    stmt = select(CatalogImage).where(CatalogImage.catalog_id == catalog_id).order_by(CatalogImage.id)
    return list(await session.scalars(stmt))


async def find_image(session: AsyncSession, pk: int) -> CatalogImage | None:
    return await session.get(CatalogImage, pk)


async def images_uploaded_before(session: AsyncSession, cutoff: datetime, after: int, batch: int) -> list[CatalogImage]:
    """Up to `batch` images uploaded at `cutoff` or before, with ids above `after`, by id."""
    stmt = (
        select(CatalogImage)
        .where(CatalogImage.created_at <= cutoff, CatalogImage.id > after)
        .order_by(CatalogImage.id)
        .limit(batch)
    )
    return list(await session.scalars(stmt))


async def delete_images(session: AsyncSession, image_ids: list[int]) -> None:
    """The images' rows and their private refs (their bytes are the image store's)."""
    await session.execute(
        delete(PrivateRef).where(PrivateRef.resource_type == CatalogImage.KIND, PrivateRef.resource_id.in_(image_ids))
    )
    await session.execute(delete(CatalogImage).where(CatalogImage.id.in_(image_ids)))


async def images_in_store(session: AsyncSession, store: str, after: int, batch: int) -> list[CatalogImage]:
    """Up to `batch` images whose bytes `store` holds, with ids above `after`, by id; locked
    for the transaction (on PostgreSQL) so that they move together with their bytes."""
    stmt = (
        select(CatalogImage)
        .where(CatalogImage.store == store, CatalogImage.id > after)
        .order_by(CatalogImage.id)
        .limit(batch)
        .with_for_update()
    )
    return list(await session.scalars(stmt))


async def set_image_store(session: AsyncSession, image_ids: list[int], store: str) -> None:
    if image_ids:
        await session.execute(update(CatalogImage).where(CatalogImage.id.in_(image_ids)).values(store=store))


async def keys_in_store(session: AsyncSession, image_ids: list[int], store: str) -> set[ImageKey]:
    """The (id, md5) of those of `image_ids` whose bytes `store` holds."""
    rows = await session.execute(
        select(CatalogImage.id, CatalogImage.md5).where(CatalogImage.id.in_(image_ids), CatalogImage.store == store)
    )
    return {ImageKey(row.id, row.md5) for row in rows}


# --- inventory ----------------------------------------------------------------------------


async def inventory_entries(session: AsyncSession, catalog_id: int, location_id: int) -> list[InventoryEntry]:
    """The catalog's entries at the location: skus, then options, each by ref."""
    return list(
        await session.scalars(
            select(InventoryEntry)
            .where(InventoryEntry.catalog_id == catalog_id, InventoryEntry.location_id == location_id)
            .order_by(InventoryEntry.kind.desc(), InventoryEntry.ref)  # skus, then options
        )
    )


Entry = tuple[str, str, Decimal | None, datetime | None]  # kind, ref, stock, expires_at


async def replace_inventory(session: AsyncSession, catalog_id: int, location_id: int, entries: list[Entry]) -> None:
    """Every entry of the catalog at the location replaced by `entries`."""
    await session.execute(
        delete(InventoryEntry).where(InventoryEntry.catalog_id == catalog_id, InventoryEntry.location_id == location_id)
    )
    session.add_all(
        InventoryEntry(
            catalog_id=catalog_id, location_id=location_id, kind=kind, ref=ref, stock=stock, expires_at=expires_at
        )
        for kind, ref, stock, expires_at in entries
    )
    await session.flush()


async def save_inventory(
    session: AsyncSession, *, removed: Iterable[InventoryEntry], added: Iterable[InventoryEntry]
) -> None:
    """Entries removed, new ones added, and the changes to loaded ones, flushed."""
    for row in removed:
        await session.delete(row)
    session.add_all(added)
    await session.flush()


def _due(now: datetime) -> tuple[Any, ...]:
    return InventoryEntry.expires_at.is_not(None), InventoryEntry.expires_at <= now


async def any_expired(session: AsyncSession, now: datetime) -> bool:
    """Whether some entry's `expires_at` has passed (a cheap check)."""
    return await session.scalar(select(InventoryEntry.ref).where(*_due(now)).limit(1)) is not None


async def claim_expired(session: AsyncSession, now: datetime, batch: int) -> list[InventoryEntry]:
    """Up to `batch` entries whose `expires_at` has passed, soonest first, locked (skipping
    those another worker holds, on PostgreSQL)."""
    return list(
        await session.scalars(
            select(InventoryEntry)
            .where(*_due(now))
            .order_by(InventoryEntry.expires_at)
            .limit(batch)
            .with_for_update(skip_locked=True)
        )
    )


async def catalog_and_location(session: AsyncSession, catalog_id: int, location_id: int) -> tuple[Catalog, Location]:
    """The catalog and the location of entries just claimed (which their rows' foreign keys
    keep in existence)."""
    return await session.get_one(Catalog, catalog_id), await session.get_one(Location, location_id)


# --- the back office and the demo ---------------------------------------------------------


async def catalogs_by_name(session: AsyncSession, account_id: int, location_id: int | None) -> list[Catalog]:
    """The catalogs of location `location_id` (or, with None, the account's account-level
    ones), by name."""
    return await levels.by_name(session, Catalog, account_id, location_id)
