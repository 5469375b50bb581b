"""Catalog images (docs/api/catalogs.md "Images"): metadata here, the bytes behind
`catalogs.images.ImageStore`: `image_data` in the database, or files (docs/operations.md "Images")."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, LargeBinary, String, text
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, UTCDateTime


class CatalogImage(Base):
    __tablename__ = "catalog_images"
    __table_args__ = NEVER_REUSE_IDS
    KIND = "image"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    catalog_id: Mapped[int] = mapped_column(ForeignKey("catalogs.id", ondelete="CASCADE"), index=True)
    type: Mapped[str] = mapped_column(String(16))  # image/jpeg, image/png, ...
    size: Mapped[int] = mapped_column(Integer)
    md5: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    # which store holds the bytes, "database" or "filesystem" (docs/operations.md "Images"):
    # read per image, so images move between stores a batch at a time while being read
    store: Mapped[str] = mapped_column(String(16), server_default=text("'database'"), default="database")

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)


class ImageData(Base):
    """The bytes of an image, for the database store."""

    __tablename__ = "image_data"

    image_id: Mapped[int] = mapped_column(ForeignKey("catalog_images.id", ondelete="CASCADE"), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
