from __future__ import annotations

from sqlalchemy import UniqueConstraint

from comptoir.models.base import NEVER_REUSE_IDS, Base
from comptoir.models.levels import AtLevel


class Catalog(AtLevel, Base):
    """A catalog at location level (`location_id` set) or account level (spec 2.4).
    Naming (spec 2.4 rule 2) is enforced by the database: `uq_catalogs_location_id_name`
    within a location, and a `name_claims` row for the account-wide rule (`comptoir.core.names`)."""

    __tablename__ = "catalogs"
    __table_args__ = (UniqueConstraint("location_id", "name"), NEVER_REUSE_IDS)
    KIND = "catalog"
