"""Request-scoped dependencies shared by every endpoint.

docs/architecture.md "Transactions": one transaction per request. The session commits when
the endpoint returns and rolls back when it raises, before the response is sent
(`scope="function"`), so a refused request leaves no trace and a failed commit is an error
response, not a silent loss.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request

from comptoir.http.state import app_state

_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    async with app_state(request).db.transaction(write=request.method not in _READ_METHODS) as session:
        yield session


Session = Annotated[AsyncSession, Depends(get_session, scope="function")]
