"""Inventory (docs/api/inventory.md "Entries"): the stock of a catalog's skus and options at one
location. No entry means unlimited stock; an entry holds `stock` (a decimal >= 0 with at
most 3 decimals) and, only with stock 0, `expires_at`, when the item comes back (in the
future when written): the worker then removes the entry and records `inventory.patch`.

Access (docs/api/inventory.md "Access", spec 5.1): `inventory.read/write` at the location (or, for an
account token, at any location of its account), or the deprecated `location[catalog.*]`, is
declared by the endpoints (`auth.access.PerLevel`); the catalog must be one the location sees
(its own or its account's), else a 404.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.auth.context import Ctx
from comptoir.catalogs import repository
from comptoir.catalogs.fields import FieldReader
from comptoir.core import levels
from comptoir.db.engine import Database
from comptoir.errors import FieldErrors, NotFound
from comptoir.kit import clock, ids
from comptoir.kit.decimals import render_decimal
from comptoir.kit.jsonstream import REFUSED, Path, Shape
from comptoir.kit.times import future, localize, parse_datetime, render_datetime
from comptoir.kit.wire import WireError, shown
from comptoir.models import Catalog, InventoryEntry
from comptoir.models.locations import LocationRef

KIND = "inventory"
KEYS = {"sku": "sku_ref", "option": "option_ref"}
L = TypeVar("L", bound=LocationRef)


async def inventory_in_reach(session: AsyncSession, catalog_id: str, location: L) -> tuple[Catalog, L]:
    """The catalog (seen from `location`, which the caller found in reach) and the location;
    404 for a catalog the location does not see."""
    pk = ids.decode(Catalog.KIND, catalog_id)
    catalog = await repository.catalog_row(session, pk) if pk is not None else None
    if catalog is None or not levels.holds(location.account_id, location.id, catalog.account_id, catalog.location_id):
        raise NotFound("catalog", catalog_id)
    return catalog, location


def render_entry(row: InventoryEntry, timezone: str) -> dict[str, Any]:
    return {
        "sku_ref": row.ref if row.kind == "sku" else None,
        "option_ref": row.ref if row.kind == "option" else None,
        "stock": render_decimal(row.stock),
        "expires_at": render_datetime(row.expires_at, timezone),
    }


async def read_inventory(session: AsyncSession, catalog: Catalog, location: LocationRef) -> list[dict[str, Any]]:
    """The catalog's entries at the location: skus, then options, each by ref."""
    entries = await repository.inventory_entries(session, catalog.id, location.id)
    return [render_entry(row, location.timezone) for row in entries]


# --- writing ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Read:
    """An entry as it was read, before the catalog is known: at `index` in the body, its ref
    (`ref_ok`: well-formed, so the catalog is asked about it), its stock (None: absent) and
    its `expires_at` as sent (naive when sent without offset)."""

    index: int
    kind: str
    ref: str
    ref_ok: bool
    stock: Decimal | None
    expires_at: datetime | None


class Entries:
    """An inventory body read in two steps, into one collector of errors (`errors`), so that
    each entry is read once whatever the path (the API's streamed body, the back office's
    stock form): `entry` reads one entry's fields as it comes, without the catalog; `checked`,
    once the catalog and the location are known, makes the checks against them (each ref one
    of the catalog's and listed once, `expires_at` in the future in the location's timezone).
    The errors come in that order (docs/api/conventions.md "Errors": the fields' formats, then
    the rules that compare them with other things), each step's entry by entry."""

    def __init__(self, *, patch: bool) -> None:
        self.patch = patch
        self.c = FieldReader()
        self.errors = self.c.errors

    def entry(self, i: int, raw: Any) -> Read | None:
        """The entry `raw` at `[i]`, read; None when it names no item (an error says why)."""
        c = self.c
        path = f"[{i}]"
        entry = c.obj(path, raw)
        if entry is None:
            return None
        given = [(kind, entry.get(key)) for kind, key in KEYS.items() if entry.get(key) is not None]
        if len(given) != 1:
            c.add(path, "must have exactly one of sku_ref and option_ref")
            return None
        kind = given[0][0]
        before = self.errors.total
        ref = c.text(entry, path, KEYS[kind])
        if ref is None:  # not a string
            return None
        ref_ok = self.errors.total == before
        stock = c.amount(entry, path, "stock", places=3, required=not self.patch)
        expires_at = None
        if entry.get("expires_at") is not None:
            expires_at = c.parsed(entry, path, "expires_at", parse_datetime)
            if stock is not None and stock != 0:
                c.add(f"{path}.expires_at", "is allowed only with stock 0 (when the item comes back)")
            if stock is None and self.patch:
                c.add(f"{path}.expires_at", "needs a stock of 0")
        return Read(i, kind, ref, ref_ok, stock, expires_at)

    def checked(self, read: Iterable[Read | None], refs: dict[str, set[str]], timezone: str) -> list[repository.Entry]:
        """(kind, ref, stock or None to delete, expires_at) of each entry read; 422 naming
        the errors of both steps."""
        c = self.c
        seen: set[tuple[str, str]] = set()
        entries: list[repository.Entry] = []
        for entry in read:
            if entry is None:
                continue
            kind, ref, expires_at = entry.kind, entry.ref, entry.expires_at
            if entry.ref_ok:
                path = f"[{entry.index}].{KEYS[kind]}"
                if ref not in refs[kind]:
                    c.add(path, f"no {kind} of the catalog has the ref {shown(ref)}")
                if (kind, ref) in seen:
                    c.add(path, f"{shown(ref)} is listed twice")
                seen.add((kind, ref))
            if expires_at is not None:
                try:  # docs/api/inventory.md "Entries": in the future
                    expires_at = future(localize(expires_at, timezone))
                except WireError as exc:
                    c.add(f"[{entry.index}].expires_at", str(exc))
            entries.append((kind, ref, entry.stock, expires_at))
        self.errors.raise_if_any()
        return entries


class StreamedEntries(list[Read | None]):
    """An inventory body as it streamed in: its entries as `reader` read them (`Entries.entry`),
    their errors in the reader's collector."""

    def __init__(self, entries: list[Read | None], reader: Entries) -> None:
        super().__init__(entries)
        self.reader = reader


def shape(method: str) -> tuple[Shape, FieldErrors]:
    """How an inventory body is streamed (kit.jsonstream): each entry read as it comes by
    `Entries.entry` (the checks against the catalog follow, once it is found); once MAX_ERRORS
    errors are named, the entries that follow are read to count their errors and dropped."""
    reader = Entries(patch=method == "PATCH")
    errors = reader.errors

    def read(raw: Any, path: Path) -> Any:
        before = errors.total
        entry = reader.entry(int(path[-1]), raw)
        return REFUSED if errors.total > before and errors.full else entry

    return Shape(items=read, done=lambda entries: StreamedEntries(entries, reader)), errors


def _parse_entries(body: Any, refs: dict[str, set[str]], timezone: str, *, patch: bool) -> list[repository.Entry]:
    """(kind, ref, stock or None to delete, expires_at) of each entry of `body` (streamed, or
    given whole, as by the back office), each entry read once; 422 naming the errors."""
    if isinstance(body, StreamedEntries):
        if body.reader.errors.full:
            raise body.reader.errors.refusal()  # refused while streaming: the entries were not all kept
        return body.reader.checked(body, refs, timezone)
    reader = Entries(patch=patch)
    if not isinstance(body, list):
        reader.c.add("inventory", f"must be an array of entries, not {shown(body)}")
        reader.errors.raise_if_any()
    return reader.checked([reader.entry(i, raw) for i, raw in enumerate(body)], refs, timezone)


async def _record(
    session: AsyncSession, ctx: Ctx | None, catalog: Catalog, location: LocationRef, event_type: str, **states: Any
) -> None:
    await events.record(
        session,
        resource_type=KIND,
        event_type=event_type,
        ids={"catalog_id": catalog.public_id, "location_id": location.public_id},
        account_id=location.account_id,
        location_id=location.id,
        catalog_id=catalog.id,
        timezone=location.timezone,
        ctx=ctx,
        **states,
    )


async def replace_inventory(
    session: AsyncSession, ctx: Ctx, catalog: Catalog, location: LocationRef, body: Any
) -> list[dict[str, Any]]:
    """PUT: every entry of the catalog at the location replaced; `inventory.update`."""
    parsed = _parse_entries(body, await repository.content_refs(session, catalog.id), location.timezone, patch=False)
    await repository.replace_inventory(session, catalog.id, location.id, parsed)
    await _record(session, ctx, catalog, location, "update")
    return await read_inventory(session, catalog, location)


def _change(
    kind: str, ref: str, previous: Decimal | None, stock: Decimal | None, expires_at: Any, tz: str
) -> dict[str, Any]:
    return {
        "sku_ref": ref if kind == "sku" else None,
        "option_ref": ref if kind == "option" else None,
        "previous_stock": render_decimal(previous) if previous is not None else None,
        "stock": render_decimal(stock) if stock is not None else None,
        "expires_at": render_datetime(expires_at, tz),
    }


async def patch_inventory(
    session: AsyncSession, ctx: Ctx | None, catalog: Catalog, location: LocationRef, body: Any
) -> list[dict[str, Any]]:
    """PATCH: only the listed entries; `stock: null` deletes one. Answers the listed entries
    as they now are, and records `inventory.patch` with the changes, when there are any
    (`ctx` None: caused by no client, as from the back office)."""
    parsed = _parse_entries(body, await repository.content_refs(session, catalog.id), location.timezone, patch=True)
    current = {(row.kind, row.ref): row for row in await repository.inventory_entries(session, catalog.id, location.id)}
    tz = location.timezone
    answer, changes = [], []
    removed, added = [], []
    for kind, ref, stock, expires_at in parsed:
        row = current.get((kind, ref))
        previous = row.stock if row is not None else None
        if stock is None:
            if row is not None:
                removed.append(row)
                changes.append(_change(kind, ref, previous, None, None, tz))
            answer.append({"sku_ref": None, "option_ref": None, KEYS[kind]: ref, "stock": None, "expires_at": None})
            continue
        if row is None:
            row = InventoryEntry(catalog_id=catalog.id, location_id=location.id, kind=kind, ref=ref)
            added.append(row)
        if previous != stock or row.expires_at != expires_at:
            changes.append(_change(kind, ref, previous, stock, expires_at, tz))
        row.stock, row.expires_at = stock, expires_at
        answer.append(render_entry(row, tz))
    await repository.save_inventory(session, removed=removed, added=added)
    if changes:
        await _record(session, ctx, catalog, location, "patch", state_change=changes)
    return answer


# --- the worker ---------------------------------------------------------------------------


async def expire_entries(db: Database, *, batch: int = 500) -> int:
    """The timed job: entries whose `expires_at` has passed are removed (the item is back),
    with one `inventory.patch` per catalog, location and expiry time. Safe with several
    workers (SKIP LOCKED on PostgreSQL; SQLite serialises writers)."""
    now = clock.now()
    async with db.transaction(write=False) as session:  # cheap check first
        if not await repository.any_expired(session, now):
            return 0
    async with db.transaction() as session:
        rows = await repository.claim_expired(session, now, batch)
        groups: dict[tuple[int, int, datetime | None], list[InventoryEntry]] = defaultdict(list)
        for row in rows:
            groups[(row.catalog_id, row.location_id, row.expires_at)].append(row)
        for (catalog_id, location_id, expired_at), entries in groups.items():
            catalog, location = await repository.catalog_and_location(session, catalog_id, location_id)
            changes = [
                _change(row.kind, row.ref, row.stock, None, expired_at, location.timezone)
                for row in sorted(entries, key=lambda row: (row.kind != "sku", row.ref))
            ]
            await repository.save_inventory(session, removed=entries, added=())
            await _record(session, None, catalog, location, "patch", state_change=changes)
        return len(rows)
