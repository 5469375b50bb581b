"""Catalog images (docs/api/catalogs.md "Images"): metadata here, the bytes behind
`catalogs.images.ImageStore` (the database by default: `image_data`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, LargeBinary, String
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

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)


class ImageData(Base):
    """The bytes of an image, for the database store."""

    __tablename__ = "image_data"

    image_id: Mapped[int] = mapped_column(ForeignKey("catalog_images.id", ondelete="CASCADE"), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
