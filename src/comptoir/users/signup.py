"""Signing up (spec 5.2 item 2), from the authorisation page or the back office: the user,
their account and its first location, in the country's main timezone and currency.

docs/api/oauth.md "Emails": a signup for an address that has an account is a failed attempt
under the login throttle of the visitor's address, so signing up cannot test which emails
have an account faster than logging in can."""

from __future__ import annotations

from collections.abc import Callable

import pycountry
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts.service import create_account
from comptoir.errors import FieldError, Unprocessable
from comptoir.kit.codes import currency_of
from comptoir.kit.times import main_timezone
from comptoir.locations.service import create_location
from comptoir.users.logins import Attempt
from comptoir.users.service import EmailTaken, create_user
from comptoir.users.sessions import WebSession, sign_in

FIELDS = ("first_name", "last_name", "email", "account_name", "location_name", "country", "currency")


class FieldMessage(str):
    """One thing wrong, in page words ("Country: choose a country from the list."), that
    knows its form field (`field`, one of FIELDS or "password"), so a page shows it beside
    the field and links to it from its summary."""

    field: str | None

    def __new__(cls, field: str | None, text: str) -> FieldMessage:
        made = super().__new__(cls, text)
        made.field = field
        return made

    @property
    def message(self) -> str:
        return str(self)


class SignupRefused(Exception):
    """What is wrong, in the form's order."""

    def __init__(self, errors: list[FieldMessage]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


LABELS = {"account_name": "Account name", "location_name": "Location name"}
_ORDER = ("first_name", "last_name", "email", "password", *FIELDS[3:])


def _refusal(errors: list[FieldError], field_of: Callable[[str], str]) -> SignupRefused:
    """The service's errors named by the form's fields and labels, in the form's order."""
    named = []
    for error in errors:
        field = field_of(error.field)
        label = LABELS.get(field) or field.replace("_", " ").capitalize()
        named.append(FieldMessage(field if field in _ORDER else None, f"{label}: {error.message}"))
    return SignupRefused(sorted(named, key=lambda e: _ORDER.index(e.field) if e.field else len(_ORDER)))


async def sign_up(db: AsyncSession, attempt: Attempt, values: dict[str, str], password: str) -> WebSession:
    """The one signup of a person, on the back office's page and the authorisation page alike
    (spec 5.2 item 2): the user, the account and its first location, then a new browser
    session. `values` holds FIELDS (stripped texts); nothing is created when it is refused:
    LoginRefused when the attempt is (throttled as a login, docs/api/oauth.md "Emails"),
    SignupRefused naming the fields otherwise; an address in use is counted as a failure."""
    if attempt.refused is not None:
        raise attempt.refused
    throttle = attempt.throttle
    errors: list[FieldMessage] = []
    country = values["country"].upper()
    if pycountry.countries.get(alpha_2=country) is None:
        errors.append(FieldMessage("country", "Country: choose a country from the list."))
    # an empty currency is the country's (kit.codes.currency_of)
    currency = values["currency"] or (currency_of(country) if not errors else None)
    if currency is None or pycountry.currencies.get(alpha_3=currency) is None:
        errors.append(FieldMessage("currency", "Currency: choose the currency of the account."))
    if errors or currency is None:  # a missing currency is one of the errors
        raise SignupRefused(errors)
    step = "user"  # whose "name" an error names: the account's, then the location's
    try:
        async with db.begin_nested():
            user = await create_user(
                db,
                email=values["email"],
                password=password,
                first_name=values["first_name"] or None,
                last_name=values["last_name"] or None,
                timezone=main_timezone(country),
            )
            step = "account_name"
            account = await create_account(db, owner=user, name=values["account_name"], currency=currency)
            step = "location_name"
            await create_location(
                db, account=account, name=values["location_name"], timezone=main_timezone(country), country=country
            )
    except Unprocessable as exc:
        if isinstance(exc, EmailTaken):
            await throttle.failed()
        raise _refusal(exc.errors, lambda field: step if field == "name" else field) from None
    return await sign_in(db, user)
