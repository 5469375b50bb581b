"""Catalog images (docs/api/catalogs.md "Images"): raw uploads checked by their bytes, at most
1 MB, and removed 30 days after upload unless a category, product, deal or discount of
their catalog uses them.

The bytes sit behind `ImageStore`: the database by default (`repository.DatabaseImageStore`); a
filesystem or object store implements the same three methods.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth.context import Ctx
from comptoir.catalogs import repository
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
    async def put(self, session: AsyncSession, image_id: int, data: bytes) -> None: ...

    async def get(self, session: AsyncSession, image_id: int) -> bytes | None: ...

    async def delete(self, session: AsyncSession, image_ids: list[int]) -> None: ...


STORE: ImageStore = DatabaseImageStore()  # the bytes in the database, with the rows


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
    )
    await repository.insert_image(session, image)
    await STORE.put(session, image.id, data)
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
    data = await STORE.get(session, image.id)
    if data is None:
        raise NotFound(KIND, public_id)
    return data, image.type


async def remove_unused(db: Database, *, batch: int = 500) -> int:
    """The timed job: images 30 days old that nothing of their catalog uses are removed."""
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
                    doomed.append(image.id)
            if doomed:
                await forget(session, doomed)
                removed += len(doomed)
        if len(old) < batch:
            return removed
        after = old[-1].id


async def forget(session: AsyncSession, image_ids: list[int]) -> None:
    """Images, their bytes and their private refs."""
    await STORE.delete(session, image_ids)
    await repository.delete_images(session, image_ids)
