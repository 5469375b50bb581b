"""Request and read shapes of spec 2.6 CustomerList."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictStr


class CustomerListWrite(BaseModel):
    """POST and PATCH/PUT body: `name` only; other keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    name: StrictStr


class CustomerList(BaseModel):
    """A customer list; `created_at` in the list's location timezone (UTC at account level)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    created_at: str
