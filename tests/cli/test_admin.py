"""docs/operations.md "Commands": each prints one JSON object; bad input prints a one-line
error on stderr, exits non-zero and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.cli.conftest import Result, refused

Cli = Callable[..., Result]
Snapshot = Callable[[], dict[str, Any]]


def make_user(cli: Cli, email: str = "owner@example.com") -> dict[str, Any]:
    return cli("admin", "create-user", "--email", email, "--password", "long-enough", "--first-name", "Ada").json


def make_account(cli: Cli, email: str = "owner@example.com") -> dict[str, Any]:
    make_user(cli, email)
    return cli("admin", "create-account", "--owner", email, "--name", "Chez Ada", "--currency", "EUR").json


# --- create-user ----------------------------------------------------------------------


def test_create_user_prints_the_user(cli: Cli) -> None:
    result = cli(
        "admin",
        "create-user",
        "--email",
        "Ada@Example.com",
        "--password",
        "long-enough",
        "--first-name",
        "Ada",
        "--last-name",
        "L",
    )
    assert result.code == 0
    body = result.json
    assert body == {"id": body["id"], "email": "ada@example.com", "first_name": "Ada", "last_name": "L"}
    assert len(body["id"]) == 6


def test_create_user_defaults(cli: Cli) -> None:
    assert (
        cli("admin", "create-user", "--email", "a@example.com", "--password", "long-enough").json["first_name"] is None
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--email", "not-an-email", "--password", "long-enough"],
            "email: must be an address such as name@example.com",
        ),
        (["--email", "a@example.com", "--password", "short"], "password: must have at least 8 characters"),
        (
            ["--email", "a@example.com", "--password", "long-enough", "--timezone", "Mars/Base"],
            "timezone: 'Mars/Base' is not an IANA timezone name (e.g. \"Europe/Paris\")",
        ),
        (
            ["--email", "a@example.com", "--password", "long-enough", "--locale", "english"],
            "locales[0]: 'english' is not a language tag such as 'en-GB'",
        ),
        (["--password", "long-enough"], "Missing option '--email'."),
    ],
)
def test_create_user_refusals(cli: Cli, snapshot: Snapshot, args: list[str], message: str) -> None:
    before = snapshot()
    refused(cli("admin", "create-user", *args), message)
    assert snapshot() == before


def test_duplicate_email_is_refused(cli: Cli, snapshot: Snapshot) -> None:
    make_user(cli)
    before = snapshot()
    refused(
        cli("admin", "create-user", "--email", "OWNER@example.com", "--password", "long-enough"),
        "email: an account already uses this address: log in with it, or sign up with another address",
    )
    assert snapshot() == before


# --- create-account -------------------------------------------------------------------


def test_create_account_prints_the_account(cli: Cli) -> None:
    body = make_account(cli)
    assert body == {"id": body["id"], "name": "Chez Ada", "currency": "EUR"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--owner", "nobody@example.com", "--name", "X", "--currency", "EUR"],
            "no user with email 'nobody@example.com'",
        ),
        (
            ["--owner", "owner@example.com", "--name", "X", "--currency", "EURO"],
            "--currency: 'EURO' is not an ISO 4217 currency code (e.g. \"EUR\")",
        ),
        (["--owner", "owner@example.com", "--name", " ", "--currency", "EUR"], "name: must not be empty"),
        (
            ["--owner", "owner@example.com", "--name", "x" * 256, "--currency", "EUR"],
            "name: must be at most 255 characters (it has 256)",
        ),
    ],
)
def test_create_account_refusals(cli: Cli, snapshot: Snapshot, args: list[str], message: str) -> None:
    make_user(cli)
    before = snapshot()
    refused(cli("admin", "create-account", *args), message)
    assert snapshot() == before


# --- create-location ------------------------------------------------------------------


def test_create_location_prints_it_as_the_api_shows_it(cli: Cli) -> None:
    account = make_account(cli)
    body = cli("admin", "create-location", "--account", account["id"], "--name", "Paris", "--city", "Paris").json
    assert body == {
        "id": f"{account['id']}-1",
        "name": "Paris",
        "account": account,
        "address": None,
        "postal_code": None,
        "city": "Paris",
        "country": "FR",
        "timezone": {"name": "Europe/Paris", "offset": 3600},
        "cutoff_time": "06:00",
        "opening_hours": None,
        "preparation_time": 15,
        "order_acceptance": {"mode": "normal", "resume_at": None, "extra_preparation_time": None, "reason": None},
        "custom_fields": {},
    }
    second = cli("admin", "create-location", "--account", account["id"], "--name", "Lyon").json
    assert second["id"] == f"{account['id']}-2"


def test_create_location_derives_country_and_timezone_from_each_other(cli: Cli) -> None:
    account = make_account(cli)
    us = cli("admin", "create-location", "--account", account["id"], "--name", "NY", "--country", "US").json
    assert (us["country"], us["timezone"]["name"]) == ("US", "America/New_York")
    tokyo = cli("admin", "create-location", "--account", account["id"], "--name", "T", "--timezone", "Asia/Tokyo").json
    assert (tokyo["country"], tokyo["timezone"]["name"]) == ("JP", "Asia/Tokyo")
    both = cli(
        "admin",
        "create-location",
        "--account",
        account["id"],
        "--name",
        "B",
        "--timezone",
        "Europe/Paris",
        "--country",
        "MC",
    ).json
    assert (both["country"], both["timezone"]["name"]) == ("MC", "Europe/Paris")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--account", "zzzzzz", "--name", "X"], "no account with id 'zzzzzz'"),
        (
            ["--account", "ACCOUNT", "--name", "X", "--timezone", "Paris"],
            "--timezone: 'Paris' is not an IANA timezone name (e.g. \"Europe/Paris\")",
        ),
        (
            ["--account", "ACCOUNT", "--name", "X", "--country", "France"],
            "--country: 'France' is not an ISO 3166-1 alpha-2 country code (e.g. \"FR\")",
        ),
    ],
)
def test_create_location_refusals(cli: Cli, snapshot: Snapshot, args: list[str], message: str) -> None:
    account = make_account(cli)
    before = snapshot()
    refused(cli("admin", "create-location", *[account["id"] if a == "ACCOUNT" else a for a in args]), message)
    assert snapshot() == before


# --- create-client --------------------------------------------------------------------


def test_create_client_prints_id_and_secret(cli: Cli) -> None:
    body = cli(
        "admin",
        "create-client",
        "--name",
        "POS",
        "--redirect-uri",
        "https://pos.example/cb",
        "--redirect-uri",
        "myapp:/callback",
    ).json
    assert set(body) == {"client_id", "client_secret", "name", "redirect_uris"}
    assert body["name"] == "POS"
    assert body["redirect_uris"] == ["https://pos.example/cb", "myapp:/callback"]
    assert len(body["client_secret"]) == 32


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("/relative", "redirect_uris[0]: '/relative' is not an absolute URI without fragment"),
        (
            "https://x.example/cb#frag",
            "redirect_uris[0]: 'https://x.example/cb#frag' is not an absolute URI without fragment",
        ),
        ("https:no-host", "redirect_uris[0]: 'https:no-host' has no host"),
    ],
)
def test_create_client_refuses_bad_redirect_uris(cli: Cli, snapshot: Snapshot, uri: str, message: str) -> None:
    before = snapshot()
    refused(cli("admin", "create-client", "--name", "POS", "--redirect-uri", uri), message)
    assert snapshot() == before


# --- block / suspend ------------------------------------------------------------------


def test_block_unblock_and_suspend_print_their_state(cli: Cli) -> None:
    account = make_account(cli)
    location = cli("admin", "create-location", "--account", account["id"], "--name", "P").json
    client = cli("admin", "create-client", "--name", "POS").json
    token = cli(
        "admin",
        "connect",
        "--client",
        client["client_id"],
        "--user",
        "owner@example.com",
        "--scope",
        "location[orders.read]",
        "--location",
        location["id"],
    ).json["access_token"]
    assert cli("admin", "block-connection", "--token", token).json == {"blocked": True}
    assert cli("admin", "unblock-connection", "--token", token).json == {"blocked": False}
    assert cli("admin", "suspend-account", "--account", account["id"]).json == {"suspended": True}
    assert cli("admin", "unsuspend-account", "--account", account["id"]).json == {"suspended": False}


def test_unknown_token_and_account_are_refused(cli: Cli, snapshot: Snapshot) -> None:
    before = snapshot()
    refused(cli("admin", "block-connection", "--token", "nope"), "no connection has that token")
    refused(cli("admin", "unblock-connection", "--token", "nope"), "no connection has that token")
    refused(cli("admin", "suspend-account", "--account", "zzzzzz"), "no account with id 'zzzzzz'")
    assert snapshot() == before


def test_migrate_prints_the_revision(cli: Cli) -> None:
    from comptoir.db.migrate import alembic_head

    assert cli("migrate").json == {"migrated": True, "revision": alembic_head()}
    assert alembic_head() == "0032"


def test_unknown_command_is_a_one_line_error(cli: Cli) -> None:
    result = cli("admin", "explode")
    assert result.code == 2
    assert result.err == "error: No such command 'explode'.\n"


def test_text_longer_than_its_column_is_refused_alike_on_both_databases(cli: Cli, snapshot: Snapshot) -> None:
    account = make_account(cli)
    before = snapshot()
    refused(
        cli("admin", "create-location", "--account", account["id"], "--name", "X", "--postal-code", "9" * 40),
        "postal_code: must be at most 32 characters (it has 40)",
    )
    refused(
        cli("admin", "create-user", "--email", "b@example.com", "--password", "long-enough", "--first-name", "F" * 300),
        "first_name: must be at most 255 characters (it has 300)",
    )
    assert snapshot() == before


def test_a_database_refusal_is_one_line(cli: Cli, snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch) -> None:
    """A concurrent command that created the same user first: the unique constraint refuses."""
    from comptoir.users import service

    make_user(cli, "dup@example.com")
    original = service.create_user

    async def racing_create_user(session, **fields):  # type: ignore[no-untyped-def]
        from sqlalchemy import update

        from comptoir.models import User

        user = await original(session, **{**fields, "email": "other@example.com"})
        await session.execute(update(User).where(User.id == user.id).values(email="dup@example.com"))
        return user

    monkeypatch.setattr(service, "create_user", racing_create_user)
    before = snapshot()
    result = cli("admin", "create-user", "--email", "new@example.com", "--password", "long-enough")
    assert result.code == 1
    assert result.out == ""
    assert result.err.startswith("error: the database refused the change (")
    assert result.err.count("\n") == 1
    assert snapshot() == before
