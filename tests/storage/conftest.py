from __future__ import annotations

import pytest

from comptoir.config import Settings
from comptoir.db.engine import Database
from tests.factories import World


@pytest.fixture
def world(database: Database, settings: Settings) -> World:
    return World(database, settings.server_key())
