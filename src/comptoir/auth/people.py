"""What a signed-in person may touch: the one access model for people, beside `access.py`'s
for tokens (docs/architecture.md "Permissions").

A person owns accounts and OAuth clients. Everything else is theirs through an account: a
location, a catalog or customer list held by the account or one of its locations, and a
connection to one of them. A connection without an account (a profile-only one) belongs to
the person who made it; an application's developer may see its connections, not manage them.

Each rule is written once, here, in the two forms its callers need: `owns` decides for a row
in hand, `owned_by` is the same rule as a SQL condition for lists. The back office refuses
what is not yours with one 404 page (`web.render.yours`), the consent page leaves it out of
the choices, the connection's creation names the field; none of them compares owners itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sqlalchemy import ColumnElement

    from comptoir.models import Account, Connection, OAuthClient


class Owned(Protocol):
    """A row a person owns directly: an account or an OAuth client (a client made by the
    operator's command line has no owner, and no person owns it)."""

    @property
    def owner_id(self) -> int | None: ...


def owns(user_id: int, row: Owned | None) -> bool:
    """Whether the person owns `row` (an account, or the account of the location, catalog or
    customer list in question; an OAuth client). Nothing (`None`) is nobody's."""
    return row is not None and row.owner_id == user_id


def owned_by(model: type[Account] | type[OAuthClient], user_id: int) -> ColumnElement[bool]:
    """`owns` as a SQL condition on `model`'s rows: the person's accounts, or applications."""
    return model.owner_id == user_id


def manages(user_id: int, connection: Connection, account: Account | None) -> bool:
    """Whether the person may manage (block, revoke) `connection`: they own what it connects,
    its `account` (None for a connection without one, which is theirs if they made it)."""
    if account is None:
        return connection.user_id == user_id
    return owns(user_id, account)


def sees(user_id: int, connection: Connection, account: Account | None, client: OAuthClient | None) -> bool:
    """Whether the person may see `connection`: they manage it, or they develop its
    application (`client`)."""
    return manages(user_id, connection, account) or owns(user_id, client)
