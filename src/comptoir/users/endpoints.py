"""spec 4.8: GET /user (profile or profile_with_email scope)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from comptoir.auth.access import PROFILE, require
from comptoir.auth.context import Ctx
from comptoir.http.dependencies import Session
from comptoir.http.openapi import READ_ERRORS
from comptoir.http.routing import JSON, ComptoirRoute
from comptoir.users.schemas import User
from comptoir.users.service import find_user, render_user

router = APIRouter(route_class=ComptoirRoute, tags=["User"])

ProfileReader = Annotated[Ctx, Depends(require("*", PROFILE))]


@router.get("/user", response_model=User, responses=READ_ERRORS, summary="Get the user who connected the application")
async def get_user(session: Session, ctx: ProfileReader) -> JSON:
    user = await find_user(session, ctx.user_id)
    assert user is not None
    return JSON(render_user(user, with_email=ctx.scope.profile_with_email))
