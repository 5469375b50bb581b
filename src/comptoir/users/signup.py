"""Signing up (spec 5.2 item 2), from the authorisation page or the back office: the user,
their account and its first location, in the country's main timezone and currency.

docs/api/oauth.md "Emails": a signup for an address that has an account is a failed attempt
under the login throttle of the visitor's address, so signing up cannot test which emails
have an account faster than logging in can."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pycountry
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts.service import create_account
from comptoir.errors import Unprocessable
from comptoir.kit.codes import currency_of
from comptoir.kit.times import main_timezone
from comptoir.locations.service import create_location
from comptoir.models import User
from comptoir.users.service import EmailTaken, create_user

if TYPE_CHECKING:
    from comptoir.users.logins import Throttle

FIELDS = ("first_name", "last_name", "email", "account_name", "location_name", "country", "currency")


class SignupRefused(Exception):
    """What is wrong, in page words ("Country: choose a country from the list.")."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


def _label(field: str) -> str:
    return field.replace("_", " ").capitalize()


async def sign_up(db: AsyncSession, values: dict[str, str], password: str, throttle: Throttle) -> User:
    """`values` holds FIELDS (stripped texts); nothing is created when it is refused. The
    caller has admitted the attempt with `throttle` (the login throttle of this email and
    address, `users.logins.admit_login`); an address in use is counted as its failure."""
    errors: list[str] = []
    country = values["country"].upper()
    if pycountry.countries.get(alpha_2=country) is None:
        errors.append("Country: choose a country from the list.")
    currency = values["currency"] or (currency_of(country) if not errors else None)
    if currency is None or pycountry.currencies.get(alpha_3=currency) is None:
        errors.append("Currency: choose the currency of the account.")
    if errors or currency is None:  # a missing currency is one of the errors
        raise SignupRefused(errors)
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
            account = await create_account(db, owner=user, name=values["account_name"], currency=currency)
            await create_location(
                db, account=account, name=values["location_name"], timezone=main_timezone(country), country=country
            )
    except Unprocessable as exc:
        if isinstance(exc, EmailTaken):
            await throttle.failed()
        raise SignupRefused([f"{_label(e.field)}: {e.message}" for e in exc.errors]) from None
    return user
