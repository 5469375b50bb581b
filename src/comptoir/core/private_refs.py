"""Private refs (spec 2.2 item 7), stored per client.

A client's ref on an object is visible to that client only: another client reads null and
may set its own without affecting the first. Refs are indexed by (client, resource type,
ref) so lists can filter on them.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, exists, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import ColumnElement

from comptoir.kit.refs import parse_private_ref
from comptoir.models import PrivateRef


async def set_ref(
    session: AsyncSession,
    resource_type: str,
    resource_id: int,
    client_id: int,
    ref: str | None,
    *,
    scope_id: int | None = None,
) -> None:
    """Set (or with None, clear) `client_id`'s private ref on one object. With `scope_id`
    the ref must be unique among the client's refs in that scope: IntegrityError otherwise."""
    if ref is None:
        await session.execute(
            delete(PrivateRef).where(
                PrivateRef.resource_type == resource_type,
                PrivateRef.resource_id == resource_id,
                PrivateRef.client_id == client_id,
            )
        )
        return
    ref = parse_private_ref(ref)
    bind = session.bind
    assert bind is not None  # sessions come from Database.transaction(), bound to its engine
    insert = pg_insert if bind.dialect.name == "postgresql" else sqlite_insert
    stmt = insert(PrivateRef).values(
        resource_type=resource_type, resource_id=resource_id, client_id=client_id, ref=ref, scope_id=scope_id
    )
    await session.execute(
        stmt.on_conflict_do_update(
            index_elements=["resource_type", "resource_id", "client_id"], set_={"ref": ref, "scope_id": scope_id}
        )
    )


async def refs_for(
    session: AsyncSession, resource_type: str, resource_ids: Iterable[int], client_id: int
) -> dict[int, str]:
    """{object id: ref} of `client_id`'s refs on those objects (absent: null on read)."""
    wanted = list(resource_ids)
    if not wanted:
        return {}
    rows = await session.execute(
        select(PrivateRef.resource_id, PrivateRef.ref).where(
            PrivateRef.client_id == client_id,
            PrivateRef.resource_type == resource_type,
            PrivateRef.resource_id.in_(wanted),
        )
    )
    return dict(rows.all())


def has_ref(resource_type: str, id_column: InstrumentedAttribute[int], client_id: int, ref: str) -> ColumnElement[bool]:
    """Filter: objects on which `client_id` set private ref `ref` (index-backed)."""
    return exists().where(
        PrivateRef.client_id == client_id,
        PrivateRef.resource_type == resource_type,
        PrivateRef.ref == ref,
        PrivateRef.resource_id == id_column,
    )
