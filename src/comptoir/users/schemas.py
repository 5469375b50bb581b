from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from comptoir.locations.schemas import Timezone


class User(BaseModel):
    """The user who connected the application; `email` only with the profile_with_email scope."""

    model_config = ConfigDict(extra="forbid")

    id: str
    first_name: str | None
    last_name: str | None
    timezone: Timezone
    locales: list[str]
    email: str | None = Field(default=None, description="Present only with the profile_with_email scope")
