from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Account(BaseModel):
    """spec 2.3 Account."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    currency: str
