"""The whole JSON of recently read or written catalogs, kept by each process
(docs/performance.md): a catalog GET checks the content's tag (one small query) and answers the
bytes it answered last time, without reading or joining megabytes again. A store anywhere draws
a new tag, so nothing stale is ever served; a store through this process keeps the answer it
made, so the next read is served from it too."""

from __future__ import annotations

from collections import OrderedDict

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.catalogs import repository


class DataCache:
    """The whole JSON of recently read or written catalogs, as bytes, by catalog and content
    tag: a read checks the tag (one small query) and skips the megabytes of the stored text.
    Each process keeps its own; a store anywhere draws a new tag, so nothing stale is ever
    served. A tag drawn by a transaction that then rolled back is never read from the
    database, so its entry is never served either.

    An entry is the answer itself, `head` (the catalog without its closing brace, then
    `,"data":`) followed by the data and `}`: a read whose head is the same answers the same
    bytes object, without joining megabytes again (a new 6 MB object per read cost more than
    the rest of the read: benchmarks/catalog.py)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        # id -> tag, length of the head, whole answer
        self.entries: OrderedDict[int, tuple[int, int, bytes]] = OrderedDict()

    def get(self, catalog_id: int, tag: int, head: bytes) -> bytes | None:
        found = self.entries.get(catalog_id)
        if found is None or found[0] != tag:
            return None
        _, size, whole = found
        if whole[:size] != head:  # renamed since (the data is the same): joined once more
            whole = b"".join((head, memoryview(whole)[size:]))
            self._keep(catalog_id, (tag, len(head), whole))
        self.entries.move_to_end(catalog_id)
        return whole

    def put(self, catalog_id: int, tag: int, head: bytes, data: bytes) -> bytes:
        whole = joined(head, data)
        self._keep(catalog_id, (tag, len(head), whole))
        return whole

    def clear(self) -> None:
        """Forget every catalog: the database was set back to an earlier state (a sandbox
        reset, docs/sandbox.md "Reset"), where tags drawn since may be drawn again."""
        self.entries.clear()
        self.size = 0

    def _keep(self, catalog_id: int, entry: tuple[int, int, bytes]) -> None:
        old = self.entries.pop(catalog_id, None)
        if old is not None:
            self.size -= len(old[2])
        if len(entry[2]) <= self.max_bytes:
            self.entries[catalog_id] = entry
            self.size += len(entry[2])
            while self.size > self.max_bytes:
                _, (_, _, dropped) = self.entries.popitem(last=False)
                self.size -= len(dropped)


def joined(head: bytes, data: bytes) -> bytes:
    """The catalog's whole JSON: `head` (its fields, up to `"data":`), the stored `data`, `}`."""
    return b"".join((head, data, b"}"))


DATA_CACHE = DataCache(max_bytes=96 * 1024 * 1024)


async def whole(session: AsyncSession, catalog_id: int, head: bytes) -> tuple[bytes, int]:
    """`head` followed by the stored `data` and `}` (the catalog's whole JSON), and the
    content's tag: from the cache when the tag still matches, else read and kept."""
    tag = await repository.content_tag(session, catalog_id)
    cached = DATA_CACHE.get(catalog_id, tag, head)
    if cached is None:
        data, tag = await repository.data_and_tag(session, catalog_id)
        cached = DATA_CACHE.put(catalog_id, tag, head, data.encode())
    return cached, tag


def written(catalog_id: int, tag: int, head: bytes, data: str) -> bytes:
    """`head` followed by the `data` text just stored under `tag` and `}`, kept: the answer of
    the write, and of the reads that follow it."""
    return DATA_CACHE.put(catalog_id, tag, head, data.encode())
