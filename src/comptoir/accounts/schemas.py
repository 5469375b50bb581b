from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Account(BaseModel):
    """An account: the business that owns locations (docs/api/locations-accounts.md)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    currency: str
