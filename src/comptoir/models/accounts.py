from __future__ import annotations

from datetime import datetime
from typing import Protocol

from sqlalchemy import Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, UTCDateTime


class Account(Base):
    """A business: owns locations, catalogs and customer lists (spec 2.3 Account)."""

    __tablename__ = "accounts"
    __table_args__ = NEVER_REUSE_IDS
    KIND = "account"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(255))
    currency: Mapped[str] = mapped_column(String(3))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    # spec 5.6: tokens of a suspended account get 401 "... suspended for non payment ..."
    suspended: Mapped[bool] = mapped_column(Boolean, default=False)
    # Location numbers are allocated by an atomic increment of this counter.
    location_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)


class AccountView:
    """A read-only copy of an account row, as fast reads return it; renders like an Account."""

    __slots__ = ("currency", "id", "name", "owner_id", "suspended")
    id: int
    name: str
    currency: str
    suspended: bool
    owner_id: int

    def __init__(self, *, id: int, name: str, currency: str, suspended: bool, owner_id: int) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "currency", currency)
        object.__setattr__(self, "suspended", suspended)
        object.__setattr__(self, "owner_id", owner_id)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"AccountView is read-only ({name})")

    @property
    def public_id(self) -> str:
        return ids.encode(Account.KIND, self.id)


class AccountRef(Protocol):
    """What reading code needs of an account: an `Account` row or an `AccountView` copy."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def currency(self) -> str: ...
    @property
    def suspended(self) -> bool: ...
    @property
    def public_id(self) -> str: ...
