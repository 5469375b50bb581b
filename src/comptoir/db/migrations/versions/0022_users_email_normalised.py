"""users' emails stored as people mean them

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-25 10:00:00.000000

Emails used to be stored stripped and lower-cased; they are now stored as
`comptoir.kit.emails.normalise` spells them (docs/api/oauth.md "Emails": NFKC, lower case,
no trailing dot on the domain, an `xn--` domain in letters). Each user's email is rewritten
so. On both databases, in the upgrade's transaction:

- Two users whose emails come to the same address refuse the migration, naming both and
  changing nothing: which of them is the real owner is an operator's decision (change or
  remove one address, then upgrade again), and keeping both would leave one of them unable
  to log in.
- An email that the new rules refuse (an invisible character, a look-alike) is kept as it
  is, and logged as a warning: its user still logs in with exactly that spelling.

Downgrade: nothing to undo (a normalised email is a valid email under the old rules).
"""

from collections import defaultdict
from collections.abc import Sequence

import sqlalchemy as sa
import structlog
from alembic import op

from comptoir.kit.emails import EmailRefused, normalise

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = structlog.get_logger("comptoir.migrations")


class SameAddress(Exception):
    """Two users' emails are one address under the new rules."""


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, email FROM users ORDER BY id")).all()
    owners: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for user_id, email in rows:
        try:
            owners[normalise(email)].append((user_id, email))
        except EmailRefused as refused:
            log.warning("email_kept_as_stored", user_id=user_id, email=email, reason=str(refused))
            owners[email].append((user_id, email))
    clashes = [(address, users) for address, users in owners.items() if len(users) > 1]
    if clashes:
        raise SameAddress(
            "migration 0022 stopped: these users' emails are one address under the email rules "
            "(docs/api/oauth.md, Emails): "
            + "; ".join(
                f"{address}: " + ", ".join(f"user {user_id} ({email})" for user_id, email in users)
                for address, users in clashes
            )
            + ". Change or remove all but one of each, then upgrade again."
        )
    update = sa.text("UPDATE users SET email = :email WHERE id = :id")
    for address, ((user_id, email),) in owners.items():
        if address != email:
            bind.execute(update, {"email": address, "id": user_id})


def downgrade() -> None:
    pass
