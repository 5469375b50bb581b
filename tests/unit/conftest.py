from __future__ import annotations

import pytest

from comptoir.kit import ids


@pytest.fixture(autouse=True)
def _id_key() -> None:
    """Unit tests make ids without a database: any key will do, if none is loaded yet."""
    if ids.current_key() is None:
        ids.use_key("unit-tests")
