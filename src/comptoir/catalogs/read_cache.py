"""The whole JSON of recently read catalogs, kept by each process (docs/performance.md): a
catalog GET checks the content's tag (one small query) and answers the bytes it answered last
time, without reading, hashing or joining megabytes again. A store anywhere draws a new tag,
so nothing stale is ever served."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.catalogs import repository


class DataCache:
    """The whole JSON of recently read catalogs, as bytes, by catalog and content tag: a read
    checks the tag (one small query) and skips the megabytes of the stored text. Each process
    keeps its own; a store anywhere draws a new tag, so nothing stale is ever served.

    An entry is the answer itself, `head` (the catalog without its closing brace, then
    `,"data":`) followed by the data and `}`: a read whose head is the same answers the same
    bytes object, without joining megabytes again (a new 6 MB object per read cost more than
    the rest of the read: benchmarks/catalog.py)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        # id -> tag, length of the head, whole answer, digest of the data
        self.entries: OrderedDict[int, tuple[int, int, bytes, str]] = OrderedDict()

    def get(self, catalog_id: int, tag: int, head: bytes) -> tuple[bytes, str] | None:
        found = self.entries.get(catalog_id)
        if found is None or found[0] != tag:
            return None
        _, size, whole, digest = found
        if whole[:size] != head:  # renamed since (the data is the same): joined once more
            whole = b"".join((head, memoryview(whole)[size:]))
            self._keep(catalog_id, (tag, len(head), whole, digest))
        self.entries.move_to_end(catalog_id)
        return whole, digest

    def put(self, catalog_id: int, tag: int, head: bytes, data: bytes) -> tuple[bytes, str]:
        digest = hashlib.blake2b(data, digest_size=12).hexdigest()
        whole = b"".join((head, data, b"}"))
        self._keep(catalog_id, (tag, len(head), whole, digest))
        return whole, digest

    def clear(self) -> None:
        """Forget every catalog: the database was set back to an earlier state (a sandbox
        reset, docs/sandbox.md "Reset"), where tags drawn since may be drawn again."""
        self.entries.clear()
        self.size = 0

    def _keep(self, catalog_id: int, entry: tuple[int, int, bytes, str]) -> None:
        old = self.entries.pop(catalog_id, None)
        if old is not None:
            self.size -= len(old[2])
        if len(entry[2]) <= self.max_bytes:
            self.entries[catalog_id] = entry
            self.size += len(entry[2])
            while self.size > self.max_bytes:
                _, (_, _, dropped, _) = self.entries.popitem(last=False)
                self.size -= len(dropped)


DATA_CACHE = DataCache(max_bytes=96 * 1024 * 1024)


async def whole(session: AsyncSession, catalog_id: int, head: bytes) -> tuple[bytes, str]:
    """`head` followed by the stored `data` and `}` (the catalog's whole JSON), and the data's
    digest: from the cache when the tag still matches, else read and kept."""
    cached = DATA_CACHE.get(catalog_id, await repository.content_tag(session, catalog_id), head)
    if cached is None:
        data, tag = await repository.data_and_tag(session, catalog_id)
        cached = DATA_CACHE.put(catalog_id, tag, head, data.encode())
    return cached
