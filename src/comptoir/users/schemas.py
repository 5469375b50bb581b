from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from comptoir.kit.ids import Id
from comptoir.locations.schemas import Timezone


class User(BaseModel):
    """The user who connected the application; `email` only with the profile_with_email scope."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "x5fh2k",
                    "first_name": "Ann",
                    "last_name": "Martin",
                    "timezone": {"name": "Europe/Paris", "offset": 3600},
                    "locales": ["fr-FR", "en-GB"],
                    "email": "ann@example.com",
                }
            ]
        },
    )

    id: Id
    first_name: str | None
    last_name: str | None
    timezone: Timezone
    locales: list[str]
    email: str | None = Field(default=None, description="Present only with the profile_with_email scope")
