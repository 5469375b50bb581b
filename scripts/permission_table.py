"""Write docs/api/permissions.md from the routes' own declarations (`comptoir.http.permission_table`).

    uv run python scripts/permission_table.py

Run it after changing a route's `require(...)`; tests/unit/test_permission_table.py fails
until the page matches the code. The application is built without a database.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.http.permission_table import page

PAGE = Path(__file__).resolve().parent.parent / "docs" / "api" / "permissions.md"


def current_page() -> str:
    """The page as the code declares it."""
    with tempfile.TemporaryDirectory() as directory:
        settings = Settings(database_url=f"sqlite:///{directory}/unused.db", secret_key="unused")  # noqa: S106 - no token is made
        return page(create_app(settings, background=False).routes)


if __name__ == "__main__":
    PAGE.write_text(current_page(), encoding="utf-8")
