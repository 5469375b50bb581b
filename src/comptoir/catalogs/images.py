"""Catalog images (docs/api/catalogs.md "Images"): raw uploads checked by their bytes, at most
1 MB, and removed 30 days after upload unless a category, product, deal or discount of
their catalog uses them.

The bytes sit behind `ImageStore`: the database by default (`repository.DatabaseImageStore`),
or files under COMPTOIR_IMAGE_DIRECTORY (`image_files.FilesystemImageStore`); each image's row
names the store holding its bytes, and `move_images` moves them a batch at a time
(docs/operations.md "Images").
"""

from __future__ import annotations

import hashlib
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth.context import Ctx
from comptoir.catalogs import repository
from comptoir.catalogs.image_files import FilesystemImageStore, ImageKey
from comptoir.catalogs.repository import CatalogInReach, DatabaseImageStore
from comptoir.catalogs.service import catalog_in_reach
from comptoir.core.private_refs import refs_for, set_ref
from comptoir.db.engine import Database
from comptoir.errors import FieldError, NotFound, Unprocessable, UnsupportedMediaType
from comptoir.kit import clock, ids
from comptoir.kit.refs import parse_private_ref
from comptoir.kit.wire import WireError
from comptoir.models import CatalogImage

KIND = "image"
MAX_BYTES = 1_048_576  # docs/api/catalogs.md "Images": 1 MB
UNUSED_LIFETIME = timedelta(days=30)
TYPES = ("image/jpeg", "image/png", "image/webp", "image/gif", "image/bmp")
# docs/operations.md "Images": a file no row names is removed once this old (an upload writes
# its file before its row commits)
ORPHAN_GRACE_SECONDS = 3600.0
SWEEP_BATCH = 500

log = structlog.get_logger("comptoir.catalogs.images")


def sniff(data: bytes) -> str | None:
    """The image type the bytes themselves show (their signature), whatever the header says."""
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:2] == b"BM" and len(data) >= 26:
        return "image/bmp"
    return None


class ImageStore(Protocol):
    """Where image bytes are kept, by `ImageKey` (the image's internal id and MD5, never client
    input). `name` is what `catalog_images.store` records. The database store works in the
    session's transaction; the filesystem store ignores the session, and its `delete` removes
    files at once, so it is called once the rows are committed gone (docs/operations.md "Images")."""

    name: str

    async def put(self, session: AsyncSession | None, key: ImageKey, data: bytes) -> None: ...

    async def get(self, session: AsyncSession | None, key: ImageKey) -> bytes | None: ...

    async def delete(self, session: AsyncSession | None, keys: list[ImageKey]) -> None: ...


class ImageStores:
    """The process's stores: the database always, files when COMPTOIR_IMAGE_DIRECTORY is set;
    new images go to `current` (the files, unless COMPTOIR_IMAGE_STORE=database), and each image
    is read from the store its row names."""

    def __init__(self, directory: Path | None, *, to_files: bool = True) -> None:
        self.database = DatabaseImageStore()
        self.files = FilesystemImageStore(directory) if directory is not None else None
        self.to_files = to_files

    @property
    def current(self) -> ImageStore:
        return self.files if self.files is not None and self.to_files else self.database

    def by_name(self, name: str) -> ImageStore | None:
        return self.files if name == FilesystemImageStore.name else self.database


STORES = ImageStores(None)


def use_directory(directory: Path | None, *, to_files: bool = True) -> None:
    """Choose the process's stores from COMPTOIR_IMAGE_DIRECTORY and COMPTOIR_IMAGE_STORE (the
    app and every command that touches images call it once settings are read, like
    `kit.ids.use_key`)."""
    global STORES
    STORES = ImageStores(directory, to_files=to_files)


def key_of(image: CatalogImage) -> ImageKey:
    return ImageKey(image.id, image.md5)


def render_image(image: CatalogImage, used: set[str], private_ref: str | None) -> dict[str, Any]:
    removal = None
    if image.public_id not in used:  # counts down to the removal of an unused image
        left = image.created_at + UNUSED_LIFETIME - clock.now()
        removal = max(0, int(left.total_seconds()))
    return {
        "id": image.public_id,
        "type": image.type,
        "size": image.size,
        "md5": image.md5,
        "seconds_before_removal": removal,
        "private_ref": private_ref,
    }


async def upload(
    session: AsyncSession, ctx: Ctx, catalog_id: str, content_type: str | None, data: bytes, private_ref: str | None
) -> dict[str, Any]:
    # spec 5.1, docs/api/catalogs.md "Images": the write on that catalog is the endpoint's
    # declared permission (auth.access.WriteOn); reading it is reach.
    found = await catalog_in_reach(session, ctx, catalog_id)
    declared = (content_type or "").split(";")[0].strip().lower()
    if declared not in TYPES:
        raise UnsupportedMediaType(
            f"An image must be sent as one of {', '.join(TYPES)} (Content-Type), not {declared or 'nothing'!r}"
        )
    if len(data) > MAX_BYTES:
        raise Unprocessable(FieldError("image", f"must be at most 1 MB ({MAX_BYTES} bytes); it is larger"))
    if sniff(data) != declared:
        raise Unprocessable(FieldError("image", f"the bytes are not a {declared.removeprefix('image/')} image"))
    if private_ref is not None:
        try:
            parse_private_ref(private_ref)
        except WireError as exc:
            raise Unprocessable(FieldError("private_ref", str(exc))) from None
    image = CatalogImage(
        catalog_id=found.id,
        type=declared,
        size=len(data),
        md5=hashlib.md5(data, usedforsecurity=False).hexdigest(),  # a checksum (docs/api/catalogs.md "Images")
        created_at=clock.now(),
        store=STORES.current.name,
    )
    await repository.insert_image(session, image)
    await STORES.current.put(session, key_of(image), data)  # a file: before the row commits
    if private_ref is not None:
        await set_ref(session, KIND, image.id, ctx.client_id, private_ref)
    return render_image(image, set(), private_ref)


async def list_images(session: AsyncSession, ctx: Ctx, catalog_id: str) -> list[dict[str, Any]]:
    found = await catalog_in_reach(session, ctx, catalog_id)
    images = await repository.images_of(session, found.id)
    used = await repository.images_in_use(session, found.id)
    refs = await refs_for(session, KIND, [image.id for image in images], ctx.client_id)
    return [render_image(image, used, refs.get(image.id)) for image in images]


async def _image(session: AsyncSession, found: CatalogInReach, public_id: str) -> CatalogImage:
    pk = ids.decode(KIND, public_id)
    image = await repository.find_image(session, pk) if pk is not None else None
    if image is None or image.catalog_id != found.id:
        raise NotFound(KIND, public_id)
    return image


async def get_image(session: AsyncSession, ctx: Ctx, catalog_id: str, public_id: str) -> dict[str, Any]:
    found = await catalog_in_reach(session, ctx, catalog_id)
    image = await _image(session, found, public_id)
    refs = await refs_for(session, KIND, [image.id], ctx.client_id)
    return render_image(image, await repository.images_in_use(session, found.id), refs.get(image.id))


async def image_data(session: AsyncSession, ctx: Ctx, catalog_id: str, public_id: str) -> tuple[bytes, str]:
    found = await catalog_in_reach(session, ctx, catalog_id)
    image = await _image(session, found, public_id)
    data = await read_bytes(session, image)
    if data is None:
        # docs/operations.md "Images": bytes gone from both stores (a file deleted by hand, a
        # directory not mounted) answer 404, and are logged
        log.error("image_bytes_missing", image_id=image.public_id, store=image.store)
        raise NotFound(KIND, public_id)
    return data, image.type


async def read_bytes(session: AsyncSession, image: CatalogImage) -> bytes | None:
    """The image's bytes from the store its row names, else from the other one: a reader
    that read the row before a move committed still finds them (docs/operations.md "Images")."""
    named = STORES.by_name(image.store)
    others = [store for store in (STORES.files, STORES.database) if store is not None and store is not named]
    for store in [named, *others] if named is not None else others:
        data = await store.get(session, key_of(image))
        if data is not None:
            return data
    return None


async def remove_unused(db: Database, *, batch: int = 500) -> int:
    """The timed job: images 30 days old that nothing of their catalog uses are removed; their
    files once their rows are committed gone."""
    cutoff = clock.now() - UNUSED_LIFETIME
    removed, after = 0, 0
    while True:
        async with db.transaction() as session:
            old = await repository.images_uploaded_before(session, cutoff, after, batch)
            used: dict[int, set[str]] = {}
            doomed = []
            for image in old:
                if image.catalog_id not in used:
                    used[image.catalog_id] = await repository.images_in_use(session, image.catalog_id)
                if image.public_id not in used[image.catalog_id]:
                    doomed.append(image)
            if doomed:
                await STORES.database.delete(session, [key_of(image) for image in doomed])
                await repository.delete_images(session, [image.id for image in doomed])
                removed += len(doomed)
        files = [key_of(image) for image in doomed if image.store == FilesystemImageStore.name]
        if files and STORES.files is not None:
            await STORES.files.delete(None, files)
        if len(old) < batch:
            return removed
        after = old[-1].id


async def sweep_files(db: Database, *, grace: float = ORPHAN_GRACE_SECONDS) -> int:
    """The timed job removing files no image row names (docs/operations.md "Images"): those of
    rolled-back uploads, of deleted catalogs, of images moved to the database, and temporary
    files left by a crash, once `grace` seconds old (file times are the wall clock's)."""
    files = STORES.files
    if files is None:
        return 0
    now = time.time()
    old = [found for found in await files.listing() if now - found.mtime >= grace]
    removed = 0
    for start in range(0, len(old), SWEEP_BATCH):
        chunk = old[start : start + SWEEP_BATCH]
        named = [found.key.id for found in chunk if found.key is not None]
        async with db.transaction(write=False) as session:
            kept = await repository.keys_in_store(session, named, files.name) if named else set()
        doomed = [found.path for found in chunk if found.key not in kept]
        await files.remove(doomed)
        removed += len(doomed)
    return removed


async def move_images(db: Database, to: str, *, batch: int = 100) -> int:
    """Move every image's bytes to store `to` ("filesystem" or "database"), `batch` images a
    transaction: each image's bytes are written to the target, its row names the target and
    the source's copy is deleted, together (a source file once the row commits). Resumable
    and idempotent: only images still in the source are read. Images whose bytes are missing
    are logged and left where they are. Returns how many moved."""
    target = STORES.by_name(to)
    source = STORES.by_name(FilesystemImageStore.name if to == DatabaseImageStore.name else DatabaseImageStore.name)
    if target is None or source is None or target is source:
        raise ValueError("moving images needs the filesystem store (COMPTOIR_IMAGE_DIRECTORY)")
    moved, after = 0, 0
    while True:
        async with db.transaction() as session:
            rows = await repository.images_in_store(session, source.name, after, batch)
            done = []
            for image in rows:
                data = await source.get(session, key_of(image))
                if data is None:
                    log.error("image_bytes_missing", image_id=image.public_id, store=image.store)
                    continue
                await target.put(session, key_of(image), data)
                done.append(key_of(image))
            await repository.set_image_store(session, [key.id for key in done], target.name)
            if source is STORES.database:
                await source.delete(session, done)
        if source is not STORES.database:
            await source.delete(None, done)  # files: once the rows name the database
        moved += len(done)
        if len(rows) < batch:
            return moved
        after = rows[-1].id
