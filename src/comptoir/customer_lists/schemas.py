"""Request and read shapes of spec 2.6 CustomerList."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from comptoir.kit.text import KEYS_WITHOUT_NUL, Label


class CustomerListWrite(BaseModel):
    """POST and PATCH/PUT body (spec 4.4): `name` only; other keys are ignored."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=KEYS_WITHOUT_NUL)

    name: Label


class CustomerList(BaseModel):
    """spec 2.6 CustomerList; `created_at` in the list's location timezone (UTC at account level)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    created_at: str
