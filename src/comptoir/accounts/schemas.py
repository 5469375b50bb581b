from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from comptoir.kit.ids import Id


class Account(BaseModel):
    """An account: the business that owns locations (docs/api/locations-accounts.md)."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"id": "4k3jxr", "name": "Chez Ann", "currency": "EUR"}]}
    )

    id: Id
    name: str
    currency: str
