"""The back office's data views (issue 8 item 4): orders, customers and catalogs, read only."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(include_in_schema=False)
