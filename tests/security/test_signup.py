"""Attacks through signing up (docs/api/oauth.md "Emails"): an account for a look-alike of
someone's email (an invisible character, fullwidth letters, a Cyrillic or Greek letter, a
trailing dot), and signup used to find out which emails have an account. Through the back
office's signup form, the one of the authorisation pages, and `comptoir admin create-user`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from comptoir.kit import clock
from comptoir.models import User
from comptoir.users import logins
from tests.api.conftest import app, client, world  # noqa: F401 - fixtures
from tests.api.oauth2.conftest import PASSWORD, Flow, flow, form_of  # noqa: F401 - fixture
from tests.api.web.test_back_office_accounts import SIGNUP
from tests.api.web.test_back_office_login import csrf_of
from tests.api.web.test_back_office_login import log_in as back_office_log_in
from tests.cli.conftest import cli, refused, snapshot  # noqa: F401 - fixtures
from tests.cli.test_admin import Cli, Snapshot
from tests.factories import World
from tests.response_schemas import CheckedASGITransport
from tests.unit.test_login_throttle import pauses  # noqa: F401 - fixture

KATE = "kate838@example.com"
ADDRESS_A = "203.0.113.10"
ADDRESS_B = "198.51.100.20"

TAKEN = "Email: an account already uses this address: log in with it, or sign up with another address"
INVISIBLE = "Email: has an invisible or control character ({code}); type the address again without it"
MIXED = "Email: mixes {scripts} letters in {label}, as addresses made to look like another do; type it in one alphabet"
TOO_MANY = "Too many failed attempts. Try again in {minutes} minute(s)."
# 5 minutes into a 15-minute throttle window: a refusal names the 10 minutes left
FIVE_PAST = datetime(2026, 3, 2, 10, 5, tzinfo=UTC)

# each look-alike of KATE, and what signing up with it answers
LOOKALIKES = [
    pytest.param(KATE, TAKEN, id="the-address-itself"),
    pytest.param("Kate838@EXAMPLE.com", TAKEN, id="capitals"),
    pytest.param("ｋａｔｅ838@ｅｘａｍｐｌｅ.com", TAKEN, id="fullwidth-letters"),
    pytest.param("kate838@example.com.", TAKEN, id="trailing-dot"),
    pytest.param("  KATE838@example.com.  ", TAKEN, id="spaces-capitals-and-dot"),
    pytest.param("kate838@example.com\u200b", INVISIBLE.format(code="U+200B"), id="zero-width-space"),
    pytest.param("kate838@exam\u00adple.com", INVISIBLE.format(code="U+00AD"), id="soft-hyphen-in-domain"),
    pytest.param("\u202ekate838@example.com", INVISIBLE.format(code="U+202E"), id="bidi-override"),
    pytest.param(
        "k\u0430te838@example.com",
        MIXED.format(scripts="Cyrillic and Latin", label="k\u0430te838"),
        id="cyrillic-a-in-local-part",
    ),
    pytest.param(
        "kate838@ex\u0430mple.com",
        MIXED.format(scripts="Cyrillic and Latin", label="ex\u0430mple"),
        id="cyrillic-a-in-domain",
    ),
    pytest.param(
        "kate838@ex\u03b1mple.com",
        MIXED.format(scripts="Greek and Latin", label="ex\u03b1mple"),
        id="greek-alpha-in-domain",
    ),
]

From = Callable[[str], AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
def from_address(app: FastAPI) -> From:  # noqa: F811 - fixture
    """An HTTP client whose requests come from `address`, with its own cookies."""

    @asynccontextmanager
    async def make(address: str) -> AsyncIterator[httpx.AsyncClient]:
        transport = CheckedASGITransport(app=app, client=(address, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield http

    return make


async def back_office_sign_up(http: httpx.AsyncClient, email: str, **fields: str) -> httpx.Response:
    page = await http.get("/signup")
    assert page.status_code == 200, page.text
    return await http.post("/signup", data={**SIGNUP, "csrf": csrf_of(page.text), "email": email, **fields})


async def oauth_sign_up(flow: Flow, email: str) -> httpx.Response:  # noqa: F811 - fixture name
    page = await flow.http.get(flow.authorize_url("profile") + "&screen=signup")
    assert page.status_code == 200, page.text
    fields = {"email": email, "password": PASSWORD, "account_name": "A", "location_name": "B", "country": "FR"}
    return await flow.post(page, **fields)


async def users(world: World) -> int:  # noqa: F811 - fixture name
    async with world.db.transaction(write=False) as session:
        return int(await session.scalar(select(func.count()).select_from(User)) or 0)


def error_of(page: httpx.Response) -> list[str]:
    """The errors a page shows, as a person reads them (each beside its field, or for the form)."""
    import html
    import re

    found = re.findall(r'<p class="(?:error|field-error)"[^>]*>(.*?)</p>', page.text, re.S)
    return [html.unescape(e) for e in found]


# --- look-alike emails ------------------------------------------------------------------


@pytest.mark.parametrize(("email", "message"), LOOKALIKES)
async def test_lookalike_email_signup_in_the_back_office_is_refused_or_reported_taken(
    client: httpx.AsyncClient,  # noqa: F811
    world: World,  # noqa: F811
    email: str,
    message: str,
) -> None:
    await world.user(email=KATE)
    before = await world.snapshot()
    answer = await back_office_sign_up(client, email)
    assert answer.status_code == 400
    assert error_of(answer) == [message]
    assert "&#39;" not in answer.text.split("<form")[0]  # no Python representation of the address
    assert await world.snapshot() == before
    assert await users(world) == 1


@pytest.mark.parametrize(("email", "message"), LOOKALIKES)
async def test_lookalike_email_signup_on_the_authorisation_page_is_refused_or_reported_taken(
    flow: Flow,  # noqa: F811
    world: World,  # noqa: F811
    email: str,
    message: str,
) -> None:
    await world.user(email=KATE)
    before = await world.snapshot()
    answer = await oauth_sign_up(flow, email)
    assert answer.status_code == 400
    assert error_of(answer) == [message]
    assert await world.snapshot() == before
    assert await users(world) == 1


@pytest.mark.parametrize(("email", "message"), LOOKALIKES)
def test_lookalike_email_signup_through_the_cli_is_refused(
    cli: Cli,  # noqa: F811
    snapshot: Snapshot,  # noqa: F811
    email: str,
    message: str,
) -> None:
    assert cli("admin", "create-user", "--email", KATE, "--password", "long-enough").code == 0
    before = snapshot()
    refused(
        cli("admin", "create-user", "--email", email, "--password", "long-enough"), message.replace("Email", "email")
    )
    assert snapshot() == before


def test_the_cli_finds_the_owner_under_another_spelling_of_the_address(cli: Cli) -> None:  # noqa: F811
    assert cli("admin", "create-user", "--email", KATE, "--password", "long-enough").code == 0
    created = cli(
        "admin", "create-account", "--owner", "ＫＡＴＥ838@Example.com.", "--name", "Kate's", "--currency", "EUR"
    )
    assert created.code == 0, created.err
    assert created.json["name"] == "Kate's"


async def test_lookalike_email_signup_of_a_wholly_cyrillic_imitation_is_refused(
    client: httpx.AsyncClient,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    """`сорее` is Cyrillic only, yet reads as the Latin `copee`: a whole-script look-alike."""
    await world.user(email="copee@example.com")
    before = await world.snapshot()
    answer = await back_office_sign_up(client, "\u0441\u043e\u0440\u0435\u0435@example.com")
    assert answer.status_code == 400
    assert error_of(answer) == [
        "Email: is written in Cyrillic letters that all look like Latin ones in \u0441\u043e\u0440\u0435\u0435, "
        "as addresses made to look like another are; type it in Latin letters"
    ]
    assert await world.snapshot() == before


async def test_an_international_address_signs_up_and_logs_in_under_either_domain_spelling(
    client: httpx.AsyncClient,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    signed_up = await back_office_sign_up(client, "Müller@Exämple.com")
    assert (signed_up.status_code, signed_up.headers["location"]) == (303, "/")
    async with world.db.transaction(write=False) as session:
        assert list(await session.scalars(select(User.email))) == ["müller@exämple.com"]
    again = await back_office_sign_up(client, "müller@xn--exmple-cua.com")
    assert error_of(again) == [TAKEN]


# --- a user logs in with any spelling of their address ----------------------------------


async def test_lookalike_email_login_with_another_case_works_in_the_back_office(
    client: httpx.AsyncClient,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    await world.user(email="Kate838@Example.com", password=PASSWORD)
    for spelling in ("KATE838@EXAMPLE.COM", "ｋａｔｅ838@example.com."):
        answer = await back_office_log_in(client, spelling, PASSWORD)
        assert (answer.status_code, answer.headers["location"]) == (303, "/"), spelling


async def test_lookalike_email_login_with_another_case_works_on_the_authorisation_page(
    flow: Flow,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    await world.user(email=KATE, password=PASSWORD)
    page = await flow.http.get(flow.authorize_url("profile"))
    answer = await flow.post(page, email="Kate838@EXAMPLE.com.", password=PASSWORD)
    assert answer.status_code == 303
    assert answer.headers["location"].startswith("/oauth2/v1/authorize?")


async def test_lookalike_email_login_with_a_cyrillic_letter_is_a_wrong_email(
    client: httpx.AsyncClient,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    await world.user(email=KATE, password=PASSWORD)
    answer = await back_office_log_in(client, "k\u0430te838@example.com", PASSWORD)
    assert answer.status_code == 400
    assert error_of(answer) == ["Wrong email or password."]


# --- telling which emails have an account -----------------------------------------------


@pytest.mark.usefixtures("pauses")
async def test_signup_enumeration_from_one_address_is_throttled_as_failed_logins(
    world: World,  # noqa: F811
    from_address: From,
) -> None:
    """Each signup for an address in use is a failed attempt of the visitor's address: after
    ADDRESS_LIMIT of them, that address can neither sign up nor log in for a while; another
    address still can."""
    clock.freeze(FIVE_PAST)
    owners = [f"owner{i}@example.com" for i in range(3)]
    for email in owners:
        await world.user(email=email, password=PASSWORD)
    per_owner = logins.Throttle.ADDRESS_LIMIT // len(owners)
    assert per_owner <= logins.Throttle.PAIR_LIMIT
    async with from_address(ADDRESS_A) as a, from_address(ADDRESS_B) as b:
        for email in owners:
            for _ in range(per_owner):
                answer = await back_office_sign_up(a, email.upper())
                assert (answer.status_code, error_of(answer)) == (400, [TAKEN])
        before = await world.snapshot()
        blocked = await back_office_sign_up(a, "somebody.new@example.com")
        assert (blocked.status_code, error_of(blocked)) == (429, [TOO_MANY.format(minutes=10)])
        assert await world.snapshot() == before  # not even the new address was signed up
        login = await back_office_log_in(a, owners[0], PASSWORD)
        assert (login.status_code, error_of(login)) == (429, [TOO_MANY.format(minutes=10)])
        elsewhere = await back_office_log_in(b, owners[0], PASSWORD)
        assert (elsewhere.status_code, elsewhere.headers["location"]) == (303, "/")


@pytest.mark.usefixtures("pauses")
async def test_signup_enumeration_of_one_email_on_the_authorisation_page_is_throttled(
    flow: Flow,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    """PAIR_LIMIT signups for one address in use, whatever its spelling, refuse that
    address's signups and logins from the visitor's address."""
    clock.freeze(FIVE_PAST)
    await world.user(email=KATE, password=PASSWORD)
    spellings = ["KATE838@example.com", "kate838@example.com.", "ｋａｔｅ838@example.com"]
    for i in range(logins.Throttle.PAIR_LIMIT):
        answer = await oauth_sign_up(flow, spellings[i % len(spellings)])
        assert (answer.status_code, error_of(answer)) == (400, [TAKEN])
    before = await world.snapshot()
    blocked = await oauth_sign_up(flow, KATE)
    assert (blocked.status_code, error_of(blocked)) == (429, [TOO_MANY.format(minutes=10)])
    page = await flow.http.get(flow.authorize_url("profile"))
    login = await flow.post(page, email=KATE, password=PASSWORD)
    assert (login.status_code, error_of(login)) == (429, [TOO_MANY.format(minutes=10)])
    assert await world.snapshot() == before
