"""Error shapes for the OpenAPI document (spec 7), so every route documents its refusals.

Each operation lists the statuses it answers with their shapes; `4XX` stands for any other
refusal (409, 413, ...), whose body is the same error shape. Declaring it also keeps FastAPI
from adding its own 422 to operations that take no body: the error handlers answer a bad
query or path parameter with a 400 in the shape below (docs/api/conventions.md "Errors"),
never with FastAPI's `{"detail": [...]}`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class ErrorBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    error_type: str
    message: str


class FieldErrorBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: str
    message: str


class ValidationErrorBody(ErrorBody):
    errors: list[FieldErrorBody]


_DESCRIPTIONS = {
    400: "Malformed request (JSON, query parameter or cursor)",
    401: "Missing, invalid, revoked or blocked token, or suspended account",
    403: "The token's level or scope does not allow this request",
    404: "Unknown or inaccessible id",
    415: "The body is not JSON",
    422: "The request is well-formed but breaks a rule",
    429: "Rate limit reached",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    declared: dict[int | str, dict[str, Any]] = {
        status: {"model": ValidationErrorBody if status == 422 else ErrorBody, "description": _DESCRIPTIONS[status]}
        for status in statuses
    }
    declared["4XX"] = {"model": ErrorBody, "description": "Any other refusal, in the same shape"}
    return declared


READ_ERRORS = error_responses(400, 401, 403, 404, 429)
# spec 8.1: lists send X-Cursor-Next while more results remain.
PAGE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "One page of results",
        "headers": {
            "X-Cursor-Next": {
                "description": "Pass as `cursor` to get the next page; absent on the last page.",
                "schema": {"type": "string"},
            }
        },
    },
    **READ_ERRORS,
}
WRITE_ERRORS = error_responses(400, 401, 403, 404, 415, 422, 429)
