"""What a valid access token stands for: the connection context every endpoint receives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from comptoir.auth.scopes import Scope, reaches_binding

if TYPE_CHECKING:
    from comptoir.models.accounts import AccountView
    from comptoir.models.locations import LocationView


class Bound(Protocol):
    """A catalog or customer list as access rules read it (`Ctx.may_use`, `auth.access.WriteOn`): its
    row, or a fast read of it."""

    @property
    def id(self) -> int: ...
    @property
    def account_id(self) -> int: ...
    @property
    def location_id(self) -> int | None: ...


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

    def may_use(self, resource: str, row: Bound, right: str) -> bool:
        """spec 5.1: `catalog` (or `customer_list`) reaches the catalog (list) bound to the
        connection, `all_catalogs` (`all_customer_lists`) every one at its level; write implies
        read. `row` has `id`, `account_id`, `location_id`."""
        bound = self.catalog_id if resource == "catalog" else self.customer_list_id
        return reaches_binding(
            self.scope,
            resource,
            right,
            bound=bound == row.id,
            level=self.level,
            account_id=self.account_id,
            location_id=self.location_id,
            row_account_id=row.account_id,
            row_location_id=row.location_id,
        )
