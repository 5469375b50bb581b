"""Private refs (spec 2.2 item 7), stored per client.

A client's ref on an object is visible to that client only: another client reads null and
may set its own without affecting the first. Refs are indexed by (client, resource type,
ref) so lists can filter on them.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.core import repository
from comptoir.kit.refs import parse_private_ref


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
        await repository.delete_private_ref(session, resource_type, resource_id, client_id)
        return
    ref = parse_private_ref(ref)
    await repository.upsert_private_ref(session, resource_type, resource_id, client_id, ref, scope_id)


async def refs_for(
    session: AsyncSession, resource_type: str, resource_ids: Iterable[int], client_id: int
) -> dict[int, str]:
    """{object id: ref} of `client_id`'s refs on those objects (absent: null on read)."""
    wanted = list(resource_ids)
    if not wanted:
        return {}
    return await repository.private_refs_of(session, resource_type, wanted, client_id)
