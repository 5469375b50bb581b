"""docs/operations.md "Commands": `admin callback-test`, `callback-resend`, `callback-replay`
and `rotate-callback-secret` call the callback services, print one JSON object, and on bad
input print one line on stderr, exit non-zero and change nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest

from comptoir.config import Settings
from comptoir.db.engine import create_database
from comptoir.events import record
from comptoir.kit import clock, ids
from tests.cli.conftest import Result, refused
from tests.conftest import SECRET_KEY
from tests.factories import World
from tests.receiver import Receiver, running_receiver

Cli = Callable[..., Result]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


def seed(database_url: str, url: str | None) -> tuple[str, str]:
    """A connection with a callback at `url` and one pending event: (token, event id)."""

    async def build() -> tuple[str, str]:
        settings = Settings(database_url=database_url, secret_key=SECRET_KEY)
        db = create_database(settings, pool_size=1)
        world = World(db, settings.server_key())
        try:
            location = await world.location()
            token = await world.token("location[orders.read]", location=location)
            await world.subscribe(token, url, {"location": ["update"]})
            async with db.transaction() as session:
                await record(
                    session,
                    resource_type="location",
                    event_type="update",
                    ids={"location_id": location.public_id},
                    account_id=location.account_id,
                    location_id=location.id,
                    previous_state={},
                    new_state={},
                )
            async with db.transaction(write=False) as session:
                from sqlalchemy import select

                from comptoir.models import Event

                event_pk = (await session.execute(select(Event.id))).scalar_one()
            return token, ids.encode("event", event_pk)
        finally:
            await db.dispose()

    return asyncio.run(build())


def test_callback_test_posts_a_test_event_and_prints_the_outcome(
    cli: Cli, database_url: str, receiver: Receiver
) -> None:
    token, _ = seed(database_url, receiver.url("/hook"))
    body = cli("admin", "callback-test", "--token", token).json
    assert (body["delivered"], body["status"], body["error"]) == (True, 200, None)
    assert body["event"]["event_type"] == "test"
    [request] = receiver.requests_to("/hook")
    assert request.headers["webhook-id"] == body["event"]["id"]


def test_callback_resend_queues_the_event(cli: Cli, database_url: str) -> None:
    token, event_id = seed(database_url, "http://127.0.0.1:9/hook")
    assert cli("admin", "callback-resend", "--token", token, "--event", event_id).json == {"count": 1}


def test_callback_resend_of_an_unknown_event_is_refused_and_changes_nothing(
    cli: Cli, database_url: str, snapshot: Callable[[], dict[str, Any]]
) -> None:
    token, _ = seed(database_url, "http://127.0.0.1:9/hook")
    before = snapshot()
    refused(cli("admin", "callback-resend", "--token", token, "--event", "zzzzzz"), "No event with id 'zzzzzz'")
    assert snapshot() == before


def test_callback_replay_queues_the_range(cli: Cli, database_url: str) -> None:
    token, _ = seed(database_url, "http://127.0.0.1:9/hook")
    start, end = (clock.now() + timedelta(days=d) for d in (-1, 1))
    result = cli("admin", "callback-replay", "--token", token, "--from", start.isoformat(), "--to", end.isoformat())
    assert result.json == {"count": 1}


def test_callback_replay_of_an_inverted_range_is_refused_and_changes_nothing(
    cli: Cli, database_url: str, snapshot: Callable[[], dict[str, Any]]
) -> None:
    token, _ = seed(database_url, "http://127.0.0.1:9/hook")
    before = snapshot()
    result = cli(
        "admin", "callback-replay", "--token", token, "--from", "2026-01-02T00:00:00", "--to", "2026-01-01T00:00:00"
    )
    refused(result, "to: '2026-01-01T00:00:00' must be after from ('2026-01-02T00:00:00')")
    assert snapshot() == before


def test_rotate_callback_secret_prints_the_new_secret(cli: Cli, database_url: str) -> None:
    token, _ = seed(database_url, "http://127.0.0.1:9/hook")
    body = cli("admin", "rotate-callback-secret", "--token", token).json
    assert body["secret"].startswith("whsec_")
    assert body["previous_secret_expires_at"] is not None


@pytest.mark.parametrize(
    "command",
    [
        ["callback-test"],
        ["callback-resend", "--event", "abcdef"],
        ["callback-replay", "--from", "2026-01-01", "--to", "2026-01-02"],
        ["rotate-callback-secret"],
    ],
)
def test_an_unknown_token_is_refused(cli: Cli, command: list[str]) -> None:
    refused(cli("admin", command[0], "--token", "nope", *command[1:]), "no connection has that token")


# docs/api/callbacks-events.md "Allowed addresses": with COMPTOIR_CALLBACK_ALLOWED_NETWORKS
# unset, a demo installation allows loopback, for the command line as for `serve`.


def subscribe_directly(database_url: str, token: str, url: str) -> None:
    async def build() -> None:
        settings = Settings(database_url=database_url, secret_key=SECRET_KEY)
        db = create_database(settings, pool_size=1)
        try:
            await db.load_id_key()
            await World(db, settings.server_key()).subscribe(token, url, {"location": ["update"]})
        finally:
            await db.dispose()

    asyncio.run(build())


def test_callback_test_on_a_demo_installation_reaches_loopback_with_the_variable_unset(
    cli: Cli, database_url: str, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COMPTOIR_CALLBACK_ALLOWED_NETWORKS")
    token = cli("demo").json["tokens"]["location"]
    subscribe_directly(database_url, token, receiver.url("/hook"))
    body = cli("admin", "callback-test", "--token", token).json
    assert (body["delivered"], body["status"], body["error"]) == (True, 200, None)
    assert len(receiver.requests_to("/hook")) == 1


def test_callback_test_elsewhere_refuses_loopback_with_the_variable_unset(
    cli: Cli, database_url: str, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    token, _ = seed(database_url, receiver.url("/hook"))
    monkeypatch.delenv("COMPTOIR_CALLBACK_ALLOWED_NETWORKS")
    body = cli("admin", "callback-test", "--token", token).json
    assert (body["delivered"], body["status"], body["error"]) == (
        False,
        None,
        "refused: 127.0.0.1 is a loopback address",
    )
    assert receiver.requests_to("/hook") == []


def test_callback_test_on_a_demo_installation_follows_the_variable_when_set(
    cli: Cli, database_url: str, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = cli("demo").json["tokens"]["location"]
    subscribe_directly(database_url, token, receiver.url("/hook"))
    monkeypatch.setenv("COMPTOIR_CALLBACK_ALLOWED_NETWORKS", "")  # set, empty: only public addresses
    body = cli("admin", "callback-test", "--token", token).json
    assert (body["delivered"], body["status"], body["error"]) == (
        False,
        None,
        "refused: 127.0.0.1 is a loopback address",
    )
    assert receiver.requests_to("/hook") == []
