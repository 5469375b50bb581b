"""What a valid access token stands for: the connection context every endpoint receives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from comptoir.auth.scopes import Scope

if TYPE_CHECKING:
    from comptoir.models.accounts import AccountView
    from comptoir.models.locations import LocationView


@dataclass(frozen=True, slots=True)
class Ctx:
    connection_id: int
    connection_name: str
    client_id: int
    client_name: str
    user_id: int
    level: str  # "location", "account", or "user" (profile-only scope)
    account_id: int | None  # the connection's account (also for location-level tokens)
    location_id: int | None  # location-level tokens only
    catalog_id: int | None
    customer_list_id: int | None
    scope: Scope
    # Read-only snapshots taken with the token lookup: render from them, never write them.
    account: AccountView | None = None
    location: LocationView | None = None

    def reaches_account(self, account_id: int) -> bool:
        return self.level == "account" and account_id == self.account_id
