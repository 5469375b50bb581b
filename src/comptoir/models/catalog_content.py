"""A catalog's content (spec 2.4), stored as it is read.

`catalog_contents` holds the read shape of `data` as JSON text, so `GET /catalogs/:id`
answers without parsing or rendering it. `catalog_items` holds each category, product,
option list, deal, discount and charge as its own JSON text, by kind and id, for the
sub-resource reads; skus come with their product, options with their option list.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, Integer, Sequence, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import Base, UTCDateTime

CATALOG_ITEM_IDS = Sequence("catalog_items_id_seq", metadata=Base.metadata)


class CatalogContent(Base):
    __tablename__ = "catalog_contents"

    catalog_id: Mapped[int] = mapped_column(ForeignKey("catalogs.id", ondelete="CASCADE"), primary_key=True)
    data: Mapped[str] = mapped_column(Text)  # the read shape of `data`, as JSON
    # random, new at every store: what a cached read is checked against (unique enough that two
    # databases served by one process, as in the tests, never share a cache entry)
    tag: Mapped[int] = mapped_column(BigInteger)
    # what inventory entries and image removal look up without reading `data`
    sku_refs: Mapped[list[str]] = mapped_column(JSON)
    option_refs: Mapped[list[str]] = mapped_column(JSON)
    image_ids: Mapped[list[str]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class CatalogItem(Base):
    __tablename__ = "catalog_items"
    __table_args__ = (Index("ix_catalog_items_listing", "catalog_id", "kind", "position"),)

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)  # category, product, option_list, ...
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    catalog_id: Mapped[int] = mapped_column(ForeignKey("catalogs.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)  # read order: depth-first for categories, else upload
    body: Mapped[str] = mapped_column(Text)  # the read shape, as JSON
