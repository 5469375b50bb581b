"""A location's page in the back office: its details, opening hours and order acceptance,
each form saved through the API's own rules (the same checks, the same `location.update`
event, caused by no client). A refused form shows every error at once, each beside its field
(docs/back-office.md "Layout, navigation and words")."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from comptoir.errors import FieldError, Unprocessable
from comptoir.http.state import app_state
from comptoir.kit.codes import countries
from comptoir.kit.times import parse_hhmm, timezone_names
from comptoir.kit.wire import WireError, shown
from comptoir.locations.schemas import ACCEPTANCE_SHAPES, DAYS, LocationUpdate
from comptoir.locations.service import edit_details, update_location
from comptoir.models import Account, Location
from comptoir.web.charts import location_charts
from comptoir.web.pages import DETAIL_FIELDS, DETAILS, owned_location, shared_with
from comptoir.web.render import PageAnswer, Person, Visitor, api_errors, crumbs, page, problems, redirect, text

router = APIRouter(include_in_schema=False)

HOURS_FIELDS = {**{f"opening_hours.{day}": day for day in DAYS}, "opening_hours": DAYS[0], "cutoff_time": "cutoff_time"}
ACCEPTANCE_FIELDS = {
    "order_acceptance.mode": "mode",
    "order_acceptance.resume_at": "resume_at",
    "order_acceptance.extra_preparation_time": "extra_preparation_time",
    "order_acceptance.reason": "reason",
    "order_acceptance": "mode",
}
ACCEPTANCE_LABELS = {"resume_at": "Resume at", "extra_preparation_time": "Extra preparation time"}


async def _location_page(
    db: AsyncSession, you: Visitor, location: Location, account: Account, form: dict[str, Any], **extra: Any
) -> Response:
    catalogs, lists = await shared_with(db, account, location)
    hours = extra.pop("hours", None) or _hours_form(location)
    acceptance = extra.pop("acceptance", None) or _acceptance_form(location)
    return page(
        "bo_location.html",
        title=location.name,
        crumbs=crumbs(account),
        you=you,
        account=account,
        location_id=location.public_id,
        timezone=location.timezone,
        form=form,
        hours=hours,
        days=DAYS,
        acceptance=acceptance,
        catalogs=catalogs,
        customer_lists=lists,
        countries=countries(),
        timezones=timezone_names(),
        location_charts=await location_charts(db, location, account.currency),
        **extra,
    )


def _hours_form(location: Location) -> dict[str, str]:
    """Opening hours as the form writes them: "11:30-14:30, 18:30-22:30" per day."""
    stored = location.opening_hours or {}
    form = {day: ", ".join(f"{slot['from']}-{slot['to']}" for slot in stored.get(day) or []) for day in DAYS}
    return {**form, "cutoff_time": location.cutoff_time}


def _acceptance_form(location: Location) -> dict[str, str]:
    resume = location.acceptance_resume_at
    shown = resume.astimezone(ZoneInfo(location.timezone)).strftime("%Y-%m-%dT%H:%M") if resume else ""
    return {
        "mode": location.acceptance_mode,
        "resume_at": shown,  # as a datetime-local input writes it, in the location's time
        "extra_preparation_time": str(location.acceptance_extra_preparation_time or ""),
        "reason": location.acceptance_reason or "",
    }


def _form_of(location: Location) -> dict[str, Any]:
    return {**{field: getattr(location, field) for field in DETAILS}, "preparation_time": location.preparation_time}


@router.get("/locations/{location_id}")
async def location_page(request: Request, you: Person, location_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        location, account = await owned_location(db, you.user, location_id)
        saved = request.query_params.get("saved") == "1"
        return await _location_page(db, you, location, account, _form_of(location), saved=saved)


@router.post("/locations/{location_id}")
async def save_location(request: Request, you: Person, location_id: str) -> Response:
    """The same checks and the same `location.update` event as the API (spec 4.8, 6.2)."""
    form = await request.form()
    values = {name: text(form, name) for name in (*DETAILS, "preparation_time")}
    async with app_state(request).db.transaction() as db:
        you.check(form)
        location, account = await owned_location(db, you.user, location_id, lock=True)
        minutes = int(values["preparation_time"]) if values["preparation_time"].isdigit() else -1
        try:
            await edit_details(db, location, account, {**{f: values[f] for f in DETAILS}, "preparation_time": minutes})
        except Unprocessable as exc:
            errors = problems(exc, DETAIL_FIELDS)
            raise PageAnswer(
                await _location_page(db, you, location, account, values, errors=errors, status=400)
            ) from None
    return redirect(f"/locations/{location_id}?saved=1")


_SLOT = re.compile(r"(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})", re.ASCII)


def _slots(day: str, written: str, found: list[FieldError]) -> list[dict[str, str]]:
    """ "11:30-14:30, 18:30-22:30" as spec 2.3's slots; what is written otherwise is added
    to `found` (every day is read, so every day's error is shown at once)."""
    slots = []
    for part in filter(None, (piece.strip() for piece in written.split(","))):
        matched = _SLOT.fullmatch(part)
        if matched is None:
            found.append(FieldError(f"opening_hours.{day}", f"{shown(part)} is not a slot like 11:30-14:30"))
            continue
        times = [matched.group(1).zfill(5), matched.group(2).zfill(5)]
        bad = [t for t in times if not _is_time(t)]
        for time in bad:
            found.append(FieldError(f"opening_hours.{day}", f"{time} is not a valid time of day"))
        if not bad:
            slots.append({"from": times[0], "to": times[1]})
    return slots


def _is_time(value: str) -> bool:
    try:
        parse_hhmm(value)
    except WireError:
        return False
    return True


def _hours_body(form: FormData, found: list[FieldError]) -> dict[str, Any] | None:
    """The PATCH body of the hours form; None when the errors in `found` leave nothing to
    check further."""
    days = {day: _slots(day, text(form, day), found) for day in DAYS}
    cutoff = text(form, "cutoff_time") or "00:00"
    if not _is_time(cutoff):
        found.append(FieldError("cutoff_time", f"{cutoff} is not a valid time of day"))
        cutoff = "00:00"
    if found and not any(days.values()):
        return None
    hours = days if any(days.values()) else None  # every day empty: no opening hours
    return {"opening_hours": hours, "cutoff_time": cutoff}


def _acceptance_body(form: FormData, found: list[FieldError]) -> dict[str, Any] | None:
    """Only the fields of the chosen mode's shape (spec 2.3): the form shows them all."""
    mode = text(form, "mode")
    given: dict[str, Any] = {"mode": mode}
    for name in ACCEPTANCE_SHAPES.get(mode, ()):
        value = text(form, name)
        if name == "extra_preparation_time":  # required by `busy`: an empty box is named by the API's check
            given[name] = int(value) if value.isdigit() else value or None
        elif value:
            given[name] = value
    return {"order_acceptance": given}


async def _update(
    request: Request,
    you: Visitor,
    location_id: str,
    body: Callable[[FormData, list[FieldError]], dict[str, Any] | None],
    form_name: str,
    fields: dict[str, str],
    **words: Any,
) -> Response:
    """A PATCH of the location through the API's own rules (`update_location`). The form's
    own errors and the API's are shown together; with any, the transaction is rolled back."""
    form = await request.form()
    async with app_state(request).db.transaction() as db:
        you.check(form)
        location, account = await owned_location(db, you.user, location_id, lock=True)
        found: list[FieldError] = []
        given = body(form, found)
        try:
            if given is not None:
                await update_location(db, None, location, account, LocationUpdate.model_validate(given))
        except (Unprocessable, ValidationError) as exc:
            found.extend(api_errors(exc))
        if found:
            written = {name: text(form, name) for name in form if name != "csrf"}
            errors = problems(found, fields, **words)
            answer = await _location_page(
                db, you, location, account, _form_of(location), errors=errors, status=400, **{form_name: written}
            )
            raise PageAnswer(answer)  # rolls back what update_location did
    return redirect(f"/locations/{location_id}?saved=1")


@router.post("/locations/{location_id}/hours")
async def save_hours(request: Request, you: Person, location_id: str) -> Response:
    return await _update(request, you, location_id, _hours_body, "hours", HOURS_FIELDS, item="slot")


@router.post("/locations/{location_id}/acceptance")
async def save_acceptance(request: Request, you: Person, location_id: str) -> Response:
    return await _update(
        request, you, location_id, _acceptance_body, "acceptance", ACCEPTANCE_FIELDS, labels=ACCEPTANCE_LABELS
    )
