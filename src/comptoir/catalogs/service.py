"""Catalogs (spec 2.4, 4.3) and who may use them (spec 5.1, docs/api/catalogs.md "Access").

A catalog is readable by a connection at its level (a location token: catalogs of its
location and account-level ones of its account; an account token: every catalog of the
account) when it is the catalog bound to the connection and the scope has `catalog.*`, or
when the scope has `all_catalogs.*`. Anything else is a 404, whether or not it exists. Who
may change one (the write scope, a location token and an account-level catalog) is declared
by the endpoints (`auth.access.WriteOn`).

Names are unique within a location (`uq_catalogs_location_id_name`) and, across the
account, held by the `name_claims` rule shared with customer lists (`comptoir.core.names`).

The content is checked by `catalogs.content` and stored as it is read by
`catalogs.repository`: `GET /catalogs/:id` joins stored JSON text, and a PUT with `data`
replaces every item in the same transaction.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.auth.context import Bound, Ctx
from comptoir.catalogs import content as catalog_content
from comptoir.catalogs import read_cache, repository
from comptoir.catalogs.repository import KIND, CatalogInReach
from comptoir.core import levels, names
from comptoir.db.direct import FastReader
from comptoir.errors import FieldError, FieldErrors, NotFound, Unprocessable, check_text
from comptoir.kit import clock, gcpause, ids
from comptoir.kit.jsonutil import dumps
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.times import render_datetime
from comptoir.kit.wire import shown
from comptoir.models import Catalog
from comptoir.models.accounts import AccountRef
from comptoir.models.locations import LocationRef, location_public_id

BOUND, ALL = "catalog", "all_catalogs"
READ_NEED = f"{BOUND}.read|{ALL}.read"
WRITE_NEED = f"{BOUND}.write|{ALL}.write"
CREATE_NEED = f"{ALL}.write"  # spec 5.1: only all_catalogs creates catalogs


def render_catalog(found: CatalogInReach) -> dict[str, Any]:
    """The catalog without `data` (lists, `hide_data`): `location_id` for a location-level
    catalog, `account_id` for an account-level one, the other null (spec 2.4)."""
    row, number = found.row, found.location_number
    return {
        "id": row.public_id,
        "name": row.name,
        "created_at": render_datetime(row.created_at, found.timezone),
        "location_id": location_public_id(row.account_id, number) if number is not None else None,
        "account_id": None if number is not None else ids.encode("account", row.account_id),
    }


def head_of(found: CatalogInReach) -> bytes:
    """The catalog's JSON up to its `data` (`render_catalog`, without its closing brace, then
    `,"data":`): the stored `data` text and `}` follow it, never parsed."""
    return dumps(render_catalog(found))[:-1] + b',"data":'


def etag_of(head: bytes, tag: int) -> str:
    """The ETag of the whole catalog: its head and its content's tag, new at every store, so
    that the megabytes of `data` are never hashed."""
    digest = hashlib.blake2b(head + str(tag).encode(), digest_size=12).hexdigest()
    return f'"{digest}"'


# --- access -------------------------------------------------------------------------------


def may(ctx: Ctx, row: Bound, right: str) -> bool:
    """spec 5.1: `catalog` reaches the bound catalog, `all_catalogs` every catalog at the
    connection's level; write implies read."""
    return ctx.may_use(BOUND, row, right)


async def catalog_in_reach(
    session: AsyncSession, ctx: Ctx, public_id: str, *, for_update: bool = False
) -> CatalogInReach:
    """The catalog behind `public_id` if the connection may read it; 404 otherwise."""
    pk = ids.decode(Catalog.KIND, public_id)
    found = await repository.find_catalog(session, pk, for_update=for_update) if pk is not None else None
    if found is None or not may(ctx, found.row, "read"):
        raise NotFound(KIND, public_id)
    return found


# --- reading ------------------------------------------------------------------------------


async def get_catalog(
    session: AsyncSession, ctx: Ctx, public_id: str, *, hide_data: bool
) -> tuple[bytes, dict[str, str]]:
    """The catalog's JSON, and its ETag when it is the whole catalog (`etag_of`: the 10 MB
    body is never hashed)."""
    found = await catalog_in_reach(session, ctx, public_id)
    if hide_data:
        return dumps(render_catalog(found)), {}
    head = head_of(found)
    whole, tag = await read_cache.whole(session, found.id, head)
    return whole, {"ETag": etag_of(head, tag)}


async def list_catalogs(
    session: AsyncSession, ctx: Ctx, *, account: AccountRef, location: LocationRef | None
) -> list[dict[str, Any]]:
    """spec 4.3: a location's catalogs include the account-level ones; an account's are its
    account-level ones. Only those the connection may read; oldest first."""
    found = await repository.catalogs_of(
        session,
        account_id=account.id,
        location_id=location.id if location else None,
        every=ctx.scope.allows(ALL),  # else only the catalog bound to the connection
        bound_id=ctx.catalog_id,
    )
    return [render_catalog(one) for one in found]


async def fast_item(reader: FastReader, ctx: Ctx, catalog_id: str, kind: str, public_id: str) -> str:
    """One category, product, option list, deal, discount or charge of a readable catalog, as
    stored, in one statement without a session (a menu app reads products one by one); 404
    when it is not in that catalog."""
    catalog_pk, item_pk = ids.decode(Catalog.KIND, catalog_id), ids.decode(kind, public_id)
    found = await repository.fast_item(reader, catalog_pk, kind, item_pk or 0) if catalog_pk else None
    if found is None or not may(ctx, found, "read"):
        raise NotFound(KIND, catalog_id)
    if found.body is None:
        raise NotFound(kind, public_id)
    return found.body


async def list_items(
    session: AsyncSession, ctx: Ctx, catalog_id: str, kind: str, page: PageRequest | None
) -> tuple[list[str], Page]:
    """A catalog's items of `kind` in read order (spec 2.4 rule 4), a page of them or all."""
    found = await catalog_in_reach(session, ctx, catalog_id)
    return await repository.items(session, found.id, kind, page)


# --- writing ------------------------------------------------------------------------------


def _name_taken(name: str) -> Unprocessable:
    return Unprocessable(
        FieldError("name", f"{shown(name)} is already the name of another catalog of this location or account")
    )


def _check_name(errors: FieldErrors, name: Any) -> None:
    if name is not None and not isinstance(name, str):
        errors.add("name", "must be a string")
        return
    check_text(errors, "name", name, 255, required=True)


# An upload of more entities than this is checked in a worker thread, so that the checks across
# entities of a large catalog (tens of milliseconds) never hold the event loop
# (docs/architecture.md "Request bodies").
THREADED_ENTITIES = 1000


def _entities(data: Any) -> int:
    if not isinstance(data, dict):
        return 0
    return sum(len(section) for section in data.values() if isinstance(section, list))


async def _read_content(
    errors: FieldErrors, data: Any, currency: str, images: set[str]
) -> catalog_content.Content | None:
    try:
        if _entities(data) > THREADED_ENTITIES:
            return await asyncio.to_thread(catalog_content.read_upload, data, currency, images)
        return catalog_content.read_upload(data, currency, images)
    except catalog_content.Invalid as exc:
        errors.extend(exc.errors)
        return None


async def _store(session: AsyncSession, catalog_id: int, content: catalog_content.Content | None) -> tuple[str, int]:
    """The catalog's content replaced by `content` (None: empty), its entities given new ids;
    the stored `data` text and its tag."""
    if content is None:
        return await repository.store_content(session, catalog_id, None)
    numbers = await repository.new_item_ids(session, content.counts())
    return await repository.store_content(session, catalog_id, catalog_content.stored_form(content, numbers))


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
        # docs/api/catalogs.md "Names and levels": a location-level catalog's events are in its timezone
        timezone=found.timezone,
        ctx=ctx,
    )


@dataclass(frozen=True, slots=True)
class NewCatalog:
    """A catalog just made, with its stored `data` text and its tag."""

    found: CatalogInReach
    data_text: str
    tag: int

    @property
    def row(self) -> Catalog:
        return self.found.row

    def read_shape(self) -> bytes:
        """The catalog's JSON, with its data, as POST .../catalogs answers it (and kept for the
        reads that follow, `read_cache.written`)."""
        return read_cache.written(self.row.id, self.tag, head_of(self.found), self.data_text)


async def create_catalog(
    session: AsyncSession,
    ctx: Ctx | None,
    *,
    account: AccountRef,
    location: LocationRef | None,
    name: Any,
    data: Any = None,
) -> NewCatalog:
    """The one way a catalog is made, whoever asks (POST .../catalogs, spec 4.3; the back
    office's and the OAuth pages' "A new catalog"; the demo): empty, or with `data`; its
    content row and its `catalog.create`. Every error of the name and of the data is named in
    one 422."""
    errors = FieldErrors()
    _check_name(errors, name)
    with gcpause.paused():
        content = await _read_content(errors, data, account.currency, set()) if data is not None else None
        errors.raise_if_any()
        row = Catalog(
            name=name, account_id=account.id, location_id=location.id if location else None, created_at=clock.now()
        )
        await names.insert_named(session, KIND, row, lambda: _name_taken(name))  # spec 2.4 rule 2
        data_text, tag = await _store(session, row.id, content)
    found = levels.written(row, account, location)
    await _record(session, ctx, found, "create")
    return NewCatalog(found, data_text, tag)


async def replace_catalog(session: AsyncSession, ctx: Ctx, public_id: str, *, name: Any, data: Any) -> bytes:
    """PUT /catalogs/:id (spec 4.3, 2.4 rule 3): a new name and/or, when `data` is present,
    all new content; the previous catalog stays whole when anything is refused."""
    found = await catalog_in_reach(session, ctx, public_id, for_update=True)
    row = found.row
    errors = FieldErrors()
    if name is not None:
        _check_name(errors, name)
    images = await repository.image_public_ids(session, row.id)  # what the content may point to
    with gcpause.paused():
        content = await _read_content(errors, data, found.currency, images) if data is not None else None
    errors.raise_if_any()
    renamed = name is not None and name != row.name
    if renamed:
        await names.rename(session, KIND, row, name, lambda: _name_taken(name))
    stored = None
    if data is not None:
        with gcpause.paused():
            stored = await _store(session, row.id, content)
    if renamed or data is not None:  # a PUT changing nothing records nothing
        await _record(session, ctx, found, "update")
    if stored is None:
        return (await read_cache.whole(session, row.id, head_of(found)))[0]
    data_text, tag = stored
    return read_cache.written(row.id, tag, head_of(found), data_text)


async def delete_catalog(session: AsyncSession, ctx: Ctx, public_id: str) -> bytes:
    """DELETE /catalogs/:id (spec 4.3): the catalog and all its content; `catalog.delete`
    is recorded first, so connections bound to it still receive it. Answers the catalog as
    it was, with its data."""
    found = await catalog_in_reach(session, ctx, public_id, for_update=True)
    body = read_cache.joined(head_of(found), (await repository.stored_data(session, found.id)).encode())
    await _record(session, ctx, found, "delete")
    await repository.delete_catalog(session, found.row)
    return body


async def catalogs_by_name(session: AsyncSession, account: AccountRef, location: LocationRef | None) -> list[Catalog]:
    """The catalogs of `location` (or, with None, the account's account-level ones), by
    name (the back office, the demo)."""
    return await repository.catalogs_by_name(session, account.id, location.id if location is not None else None)
