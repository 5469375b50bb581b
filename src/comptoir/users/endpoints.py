"""GET /user (profile or profile_with_email scope; docs/api/locations-accounts.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from comptoir.auth.access import PROFILE, require
from comptoir.auth.context import Ctx
from comptoir.http.dependencies import Session
from comptoir.http.openapi import READ_ERRORS, answer_example
from comptoir.http.routing import JSON, ComptoirRoute
from comptoir.users.schemas import User
from comptoir.users.service import find_user, render_user

router = APIRouter(route_class=ComptoirRoute, tags=["User"])

ProfileReader = Annotated[Ctx, Depends(require("*", PROFILE))]


USER_EXAMPLE = {
    "id": "u3k8dp",
    "first_name": "Ada",
    "last_name": "Martin",
    "timezone": {"name": "Europe/Paris", "offset": 3600},
    "locales": ["fr-FR"],
    "email": "ada@example.com",
}


@router.get(
    "/user",
    response_model=User,
    responses=answer_example(READ_ERRORS, USER_EXAMPLE),
    summary="Get the user who connected the application",
)
async def get_user(session: Session, ctx: ProfileReader) -> JSON:
    """The user who authorised the connection: names, time zone and locales, and the email
    only when the scope holds `profile_with_email`."""
    user = await find_user(session, ctx.user_id)
    assert user is not None
    return JSON(render_user(user, with_email=ctx.scope.profile_with_email))
