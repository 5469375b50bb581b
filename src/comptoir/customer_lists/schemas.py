"""Request and read shapes of spec 2.6 CustomerList."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from comptoir.kit.ids import Id
from comptoir.kit.requests import RequestModel
from comptoir.kit.text import Label, body_schema
from comptoir.kit.times import TimeOut


class CustomerListWrite(RequestModel):
    """POST and PATCH/PUT body: `name` only; other keys are ignored."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=body_schema({"name": "Regulars"}))

    name: Label


class CustomerList(BaseModel):
    """A customer list; `created_at` in the list's location timezone (UTC at account level)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"id": "q8s2fd", "name": "Regulars", "created_at": "2026-06-24T17:07:53+02:00"}]
        },
    )

    id: Id
    name: str
    created_at: TimeOut
