"""Locations (spec 2.3, 3.3, 4.8): opening hours, order acceptance and its timed reversion."""

from __future__ import annotations

from datetime import datetime
from itertools import pairwise
from typing import Any, Literal, overload

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.accounts.service import take_location_number
from comptoir.auth.context import Ctx
from comptoir.db.engine import Database
from comptoir.db.unit import Unit
from comptoir.errors import FieldErrors, NotFound, check_code, check_text
from comptoir.kit import clock, custom_fields
from comptoir.kit.codes import parse_country
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.times import future, hhmm_minutes, localize, parse_timezone_name, render_datetime, render_timezone
from comptoir.kit.wire import WireError
from comptoir.locations import repository
from comptoir.locations.schemas import (
    ACCEPTANCE_SHAPES,
    DAYS,
    MAX_MINUTES,
    MAX_REASON,
    LocationUpdate,
    OrderAcceptanceUpdate,
)
from comptoir.models import Account, Location, User
from comptoir.models.accounts import AccountView
from comptoir.models.locations import LocationView, parse_location_id

DEFAULT_CUTOFF = "06:00"  # spec 2.3 / 8.3
DEFAULT_PREPARATION_TIME = 15  # minutes; the spec leaves it open (docs/api/locations-accounts.md "Locations")


# --- reading ----------------------------------------------------------------------------


def _acceptance_due(location: Location | LocationView, now: datetime) -> bool:
    resume_at = location.acceptance_resume_at
    return location.acceptance_mode != "normal" and resume_at is not None and resume_at <= now


def preparation_minutes(location: Location | LocationView, now: datetime) -> int:
    """The minutes an order placed `now` takes to prepare: the location's preparation time,
    plus busy mode's extra time while the location is busy (spec 2.3; a busy mode whose
    `resume_at` has passed is over, as `render_location` reads it)."""
    busy = location.acceptance_mode == "busy" and not _acceptance_due(location, now)
    return location.preparation_time + ((location.acceptance_extra_preparation_time or 0) if busy else 0)


def render_location(
    location: Location | LocationView, account: Account | AccountView, *, effective: bool = True
) -> dict[str, Any]:
    """spec 2.3 Location. With `effective`, a busy/paused mode whose `resume_at` has passed
    reads as normal even before the timed job has written the reversion."""
    tz = location.timezone
    if effective and _acceptance_due(location, clock.now()):
        acceptance: dict[str, Any] = {
            "mode": "normal",
            "resume_at": None,
            "extra_preparation_time": None,
            "reason": None,
        }
    else:
        acceptance = {
            "mode": location.acceptance_mode,
            "resume_at": render_datetime(location.acceptance_resume_at, tz),
            "extra_preparation_time": location.acceptance_extra_preparation_time,
            "reason": location.acceptance_reason,
        }
    return {
        "id": location.public_id,
        "name": location.name,
        "account": {"id": account.public_id, "name": account.name, "currency": account.currency},
        "address": location.address,
        "postal_code": location.postal_code,
        "city": location.city,
        "country": location.country,
        "timezone": render_timezone(tz),
        "cutoff_time": location.cutoff_time,
        "opening_hours": location.opening_hours,
        "preparation_time": location.preparation_time,
        "order_acceptance": acceptance,
        "custom_fields": location.custom_fields,
    }


# Where a location is read: a session, or a unit of work (`db.unit`), whose transaction is
# opened only when a read needs one (a location-level connection's own location needs none).
Source = AsyncSession | Unit


async def _session(db: Source) -> AsyncSession:
    return db if isinstance(db, AsyncSession) else await db.session()


@overload
async def location_in_reach(
    db: Source, ctx: Ctx, public_id: str, *, for_update: Literal[True]
) -> tuple[Location, Account]: ...
@overload
async def location_in_reach(
    db: Source, ctx: Ctx, public_id: str, *, for_update: bool = False
) -> tuple[Location | LocationView, Account | AccountView]: ...
async def location_in_reach(
    db: Source, ctx: Ctx, public_id: str, *, for_update: bool = False
) -> tuple[Location | LocationView, Account | AccountView]:
    """The location behind `public_id` and its account, if the connection reaches it; else
    404, whether or not it exists elsewhere (docs/architecture.md "Permissions").
    `for_update`: the rows, the location locked in the request's transaction."""
    account_pk, number = _parsed_in_account(ctx, public_id)
    if ctx.level == "location":
        found = await connection_location(db, ctx, for_update=for_update)
        if found[0].number != number:
            raise NotFound("location", public_id)
        return found
    if ctx.level != "account":
        raise NotFound("location", public_id)
    row = await repository.with_account(await _session(db), account_pk, number, for_update=for_update)
    if row is None:
        raise NotFound("location", public_id)
    return row


def _parsed_in_account(ctx: Ctx, public_id: str) -> tuple[int, int]:
    parsed = parse_location_id(public_id)
    if parsed is None or parsed[0] != ctx.account_id:
        raise NotFound("location", public_id)
    return parsed


@overload
async def connection_location(db: Source, ctx: Ctx, *, for_update: Literal[True]) -> tuple[Location, Account]: ...
@overload
async def connection_location(
    db: Source, ctx: Ctx, *, for_update: bool = False
) -> tuple[Location | LocationView, Account | AccountView]: ...
async def connection_location(
    db: Source, ctx: Ctx, *, for_update: bool = False
) -> tuple[Location | LocationView, Account | AccountView]:
    """The location of a location-level connection: the snapshot read with the token, or,
    `for_update`, the row itself, locked in the request's transaction."""
    assert ctx.location_id is not None
    if for_update:
        return await repository.locked_by_id(await _session(db), ctx.location_id)
    assert ctx.location is not None
    assert ctx.account is not None
    return ctx.location, ctx.account


async def location_of(
    db: Source, ctx: Ctx, public_id: str | None, *, for_update: bool = False
) -> tuple[Location | LocationView, Account | AccountView]:
    """The location a path names: `public_id` in its long form (`location_in_reach`), the
    connection's own in its short form, where `public_id` is None (`connection_location`).
    The one decision of a location's reach, for every route under a location."""
    if public_id is None:
        return await connection_location(db, ctx, for_update=for_update)
    return await location_in_reach(db, ctx, public_id, for_update=for_update)


async def list_locations(session: AsyncSession, ctx: Ctx, page: PageRequest) -> tuple[list[dict[str, Any]], Page]:
    """GET /locations (account tokens): the account's locations by number."""
    assert ctx.account_id is not None
    result = await repository.page_of_account(session, ctx.account_id, page)
    return [render_location(location, account) for location, account in result.rows], result


# --- opening hours (spec 2.3 items 1-4) -------------------------------------------------


def check_opening_hours(hours: dict[str, Any] | None, cutoff: str, errors: FieldErrors) -> None:
    """docs/api/locations-accounts.md "Opening hours": a time (from or to) earlier than the
    cutoff belongs to the next calendar day; then `to` must follow `from`, and slots of one
    day must not overlap. A week needs at least one slot; a missing day or an empty array
    means closed."""
    if hours is None:
        return
    cutoff_minutes = hhmm_minutes(cutoff)

    def shifted(value: str) -> int:
        minutes = hhmm_minutes(value)
        return minutes + 1440 if minutes < cutoff_minutes else minutes

    slot_count = 0
    for day in DAYS:
        spans: list[tuple[int, int, int]] = []
        for i, slot in enumerate(hours.get(day) or []):
            slot_count += 1
            start, end = shifted(slot["from"]), shifted(slot["to"])
            if end <= start:
                errors.add(
                    f"opening_hours.{day}[{i}].to",
                    f"{slot['to']} does not follow {slot['from']}: with cutoff_time {cutoff}, "
                    f"times before {cutoff} belong to the next day",
                )
            else:
                spans.append((start, end, i))
        spans.sort()
        for (_s1, end1, i1), (start2, _e2, i2) in pairwise(spans):
            if start2 < end1:
                errors.add(f"opening_hours.{day}[{i2}]", f"overlaps opening_hours.{day}[{i1}]")
    if slot_count == 0:
        errors.add("opening_hours", "must have at least one slot in the week (or be null)")


# --- order acceptance (spec 2.3) --------------------------------------------------------


def check_order_acceptance(
    given: OrderAcceptanceUpdate, timezone: str, errors: FieldErrors
) -> tuple[str, datetime | None, int | None, str | None]:
    """One of the three shapes of spec 2.3; a key of another shape with a non-null value is
    refused. Returns (mode, resume_at in UTC, extra_preparation_time, reason)."""
    mode = given.mode
    for name in ("resume_at", "extra_preparation_time", "reason"):
        if getattr(given, name) is not None and name not in ACCEPTANCE_SHAPES[mode]:
            errors.add(f"order_acceptance.{name}", f"is not allowed when mode is {mode}")
    if mode == "busy":
        if given.extra_preparation_time is None:
            errors.add("order_acceptance.extra_preparation_time", "is required when mode is busy")
        elif not 0 <= given.extra_preparation_time <= MAX_MINUTES:
            errors.add("order_acceptance.extra_preparation_time", f"must be between 0 and {MAX_MINUTES} minutes")
    if given.reason is not None and len(given.reason) > MAX_REASON:
        errors.add("order_acceptance.reason", f"must be at most {MAX_REASON} characters")
    resume_at = None
    if given.resume_at is not None and mode != "normal":
        resume_at = localize(given.resume_at, timezone)
        try:
            future(resume_at)
        except WireError as exc:
            errors.add("order_acceptance.resume_at", str(exc))
    if mode == "normal":
        return mode, None, None, None
    return mode, resume_at, given.extra_preparation_time if mode == "busy" else None, given.reason


def _set_normal(location: Location) -> None:
    location.acceptance_mode = "normal"
    location.acceptance_resume_at = None
    location.acceptance_extra_preparation_time = None
    location.acceptance_reason = None


# --- writing ----------------------------------------------------------------------------


async def _record_update(
    session: AsyncSession,
    location: Location,
    previous: dict[str, Any],
    new: dict[str, Any],
    ctx: Ctx | None,
) -> None:
    await events.record(
        session,
        resource_type="location",
        event_type="update",
        ids={"location_id": location.public_id, "account_id": new["account"]["id"]},
        account_id=location.account_id,
        location_id=location.id,
        timezone=location.timezone,
        previous_state=previous,
        new_state=new,
        ctx=ctx,
    )


async def _revert_if_due(session: AsyncSession, location: Location, account: Account) -> bool:
    """spec 3.3: busy or paused reverts to normal at `resume_at`; records a location update
    caused by the service itself."""
    if not _acceptance_due(location, clock.now()):
        return False
    previous = render_location(location, account, effective=False)
    _set_normal(location)
    location.updated_at = clock.now()
    await _record_update(session, location, previous, render_location(location, account), None)
    return True


async def update_location(
    session: AsyncSession, ctx: Ctx | None, location: Location, account: Account, update_: LocationUpdate
) -> dict[str, Any]:
    """PATCH /locations/:id (spec 4.8): validates every given field against the resulting
    state, refuses with all errors at once, records one location update when anything
    changed (caused by `ctx`'s connection; None: the back office). The caller holds the
    row lock."""
    await _revert_if_due(session, location, account)
    previous = render_location(location, account)
    given = update_.model_fields_set
    errors = FieldErrors()

    cutoff = update_.cutoff_time if "cutoff_time" in given else location.cutoff_time
    hours = location.opening_hours
    if "opening_hours" in given:
        hours = update_.opening_hours.as_stored() if update_.opening_hours is not None else None
    if given & {"cutoff_time", "opening_hours"}:
        check_opening_hours(hours, cutoff, errors)

    if "preparation_time" in given:
        check_preparation_time(update_.preparation_time, errors)

    acceptance = None
    if "order_acceptance" in given:
        acceptance = check_order_acceptance(update_.order_acceptance, location.timezone, errors)

    fields = location.custom_fields
    if "custom_fields" in given:
        try:
            fields = custom_fields.merge(location.custom_fields, update_.custom_fields)
        except WireError as exc:
            errors.add("custom_fields", str(exc))

    errors.raise_if_any()

    location.cutoff_time = cutoff
    location.opening_hours = hours
    if "preparation_time" in given:
        location.preparation_time = update_.preparation_time
    if acceptance is not None:
        mode, resume_at, extra, reason = acceptance
        location.acceptance_mode = mode
        location.acceptance_resume_at = resume_at
        location.acceptance_extra_preparation_time = extra
        location.acceptance_reason = reason
    location.custom_fields = fields

    new = render_location(location, account)
    if new != previous:
        location.updated_at = clock.now()
        await _record_update(session, location, previous, new, ctx)
    return new


async def revert_due_acceptances(db: Database, *, batch: int = 100) -> int:
    """The timed job of spec 3.3 / docs/api/locations-accounts.md "Resuming": revert every
    busy or paused location whose `resume_at` has passed, recording a location update for
    each. Idempotent and safe with several workers (rows are claimed with SKIP LOCKED on
    PostgreSQL, and writers are serialised on SQLite). Returns how many it reverted."""
    now = clock.now()
    async with db.transaction(write=False) as session:  # cheap check first: no write lock
        if not await repository.any_due(session, now):
            return 0
    async with db.transaction() as session:
        reverted = 0
        for location, account in await repository.claim_due(session, now, batch):
            reverted += await _revert_if_due(session, location, account)
        return reverted


def check_preparation_time(minutes: int, errors: FieldErrors) -> None:
    if not 0 <= minutes <= MAX_MINUTES:
        errors.add("preparation_time", f"must be between 0 and {MAX_MINUTES} minutes")


async def edit_details(
    session: AsyncSession, location: Location, account: Account, details: dict[str, Any], ctx: Ctx | None = None
) -> dict[str, Any]:
    """What only the back office changes (spec 2.2: the name; and the address, postal code,
    city, country, timezone), checked as `create_location` checks them, with the preparation
    time checked as `update_location` does; one location update when anything changed, with
    `update_location`'s event. The caller holds the row lock."""
    errors = FieldErrors()
    check_preparation_time(details["preparation_time"], errors)
    _check_texts(errors, details["name"], details["address"], details["postal_code"], details["city"])
    _check_codes(errors, details["country"], details["timezone"])
    errors.raise_if_any()
    previous = render_location(location, account)
    for field in ("name", "country", "timezone", "preparation_time"):
        setattr(location, field, details[field])
    for field in ("address", "postal_code", "city"):  # optional: empty is none
        setattr(location, field, details[field] or None)
    new = render_location(location, account)
    if new != previous:
        location.updated_at = clock.now()
        await _record_update(session, location, previous, new, ctx)
    return new


# --- creating (admin, demo, back office) ------------------------------------------------


def _check_texts(
    errors: FieldErrors, name: str, address: str | None, postal_code: str | None, city: str | None
) -> None:
    """The free texts of a location, as creating and the back office's edit check them."""
    check_text(errors, "name", name, 255, required=True)
    check_text(errors, "address", address, 1000)
    check_text(errors, "postal_code", postal_code, 32)
    check_text(errors, "city", city, 255)


def _check_codes(errors: FieldErrors, country: str, timezone: str) -> None:
    """A location's country and timezone (the API's Country and Timezone), as creating and
    the back office's edit check them."""
    check_code(errors, "country", country, parse_country)
    check_code(errors, "timezone", timezone, parse_timezone_name)


async def create_location(
    session: AsyncSession,
    *,
    account: Account,
    name: str,
    timezone: str,
    country: str,
    address: str | None = None,
    postal_code: str | None = None,
    city: str | None = None,
) -> Location:
    """A new location numbered after the account's last one (an atomic counter, so two
    concurrent creations never share a number). Every field is checked before anything
    is written, every error named."""
    errors = FieldErrors()
    _check_texts(errors, name, address, postal_code, city)
    _check_codes(errors, country, timezone)
    errors.raise_if_any()
    number = await take_location_number(session, account)
    now = clock.now()
    location = Location(
        account_id=account.id,
        number=number,
        name=name,
        address=address,
        postal_code=postal_code,
        city=city,
        country=country,
        timezone=timezone,
        cutoff_time=DEFAULT_CUTOFF,
        opening_hours=None,
        preparation_time=DEFAULT_PREPARATION_TIME,
        acceptance_mode="normal",
        custom_fields={},
        created_at=now,
        updated_at=now,
    )
    await repository.add(session, location)
    return location


async def find_location(
    session: AsyncSession, public_id: str, *, for_update: bool = False
) -> tuple[Location, Account] | None:
    """The location behind `public_id` and its account, wherever it is (admin, back office);
    `for_update`: the location locked in the session's transaction."""
    parsed = parse_location_id(public_id)
    if parsed is None:
        return None
    return await repository.with_account(session, parsed[0], parsed[1], for_update=for_update)


async def locations_of_account(session: AsyncSession, account: Account) -> list[Location]:
    """The account's locations by number."""
    return await repository.of_account(session, account.id)


async def first_location(session: AsyncSession, account: Account) -> Location | None:
    """The account's first location (by number), if any."""
    return await repository.first_of_account(session, account.id)


async def locations_of_accounts(session: AsyncSession, accounts: list[Account]) -> list[Location]:
    """The locations of these accounts, by account then number."""
    return await repository.of_accounts(session, [account.id for account in accounts])


async def locations_owned_by(session: AsyncSession, user: User) -> list[tuple[Location, Account]]:
    """Every location of the user's accounts with its account, by account then number."""
    return await repository.owned_by(session, user.id)
