"""Ids, tokens and client secrets a seed file gives (docs/sandbox.md "Ids, tokens and
secrets"): used as written, in the ready line and by the API, before and after a reset; what
the file does not give stays the same at every start; a bad one is refused, one line, and
nothing starts."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from comptoir.config import Settings
from comptoir.sandbox.seed import Seed, SeedError
from comptoir.sandbox.service import Sandbox, start
from tests.api.oauth2.conftest import form_of, query_of
from tests.receiver import Receiver
from tests.sandbox.conftest import example, token

POS_TOKEN = "pos-paris.given_token~1"
POS_SECRET = "caisse-secret+given/2=="


def given() -> dict[str, Any]:
    """The example seed with ids, a token and a client secret written in it, and a connection
    that reads the user's profile."""
    data = example()
    data["users"][0]["id"] = "gina22"
    data["accounts"][0]["id"] = "pizza2"
    data["locations"][1]["id"] = "pizza2-7"  # Lyon; Paris gets the account's first number
    data["catalogs"][0]["id"] = "menu22"
    data["customer_lists"][0]["id"] = "regs22"
    data["customer_lists"][0]["customers"][0]["id"] = "cust22"
    data["customer_lists"][0]["customers"][0]["loyalty_cards"][0]["id"] = "card22"
    pos = next(app for app in data["applications"] if app["key"] == "pos")
    pos["client_id"] = "caisse"
    pos["client_secret"] = POS_SECRET
    data["connections"][1]["access_token"] = POS_TOKEN
    data["connections"].append(
        {"key": "profile", "application": "ordering_site", "user": "owner", "scope": "profile", "name": "profile"}
    )
    return data


@pytest.fixture
async def given_sandbox(
    base_settings: Settings, sandbox_url: str | None, write_seed: Callable[[dict[str, Any]], Seed]
) -> Any:
    started, _key = await start(base_settings, write_seed(given()), sandbox_url)
    yield started
    await started.close()


@pytest.fixture
async def given_client(given_sandbox: Sandbox) -> Any:
    from comptoir.app import create_app
    from tests import apps
    from tests.response_schemas import CheckedASGITransport

    app = apps.shared(
        create_app(given_sandbox.settings, database=given_sandbox.db, background=False, sandbox=given_sandbox)
    )
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
        yield http
    await app.state.comptoir.fast.close()


def test_given_ids_token_and_secret_are_in_the_ready_line(given_sandbox: Sandbox) -> None:
    answer = given_sandbox.answer
    assert answer["users"]["owner"]["id"] == "gina22"
    assert answer["accounts"] == {"pizzeria": "pizza2"}
    assert answer["locations"] == {"paris": "pizza2-1", "lyon": "pizza2-7"}
    assert answer["catalogs"] == {"menu": "menu22"}
    assert answer["customer_lists"] == {"regulars": "regs22"}
    assert answer["customers"]["alice"] == "cust22"
    assert answer["loyalty_cards"] == {"alice-card": "card22"}
    assert answer["applications"]["pos"] == {"client_id": "caisse", "client_secret": POS_SECRET}
    assert answer["connections"]["pos_paris"]["access_token"] == POS_TOKEN
    assert answer["connections"]["pos_paris"]["account_id"] == "pizza2"
    assert answer["connections"]["pos_paris"]["location_id"] == "pizza2-1"
    assert answer["connections"]["pos_paris"]["catalog_id"] == "menu22"


async def _reads(client: httpx.AsyncClient, sandbox: Sandbox) -> dict[str, tuple[int, Any]]:
    """What the API answers for every given id: with the given token, and the account's
    (the delivery app's) for the account and the other location."""
    pos, account = {"X-Access-Token": POS_TOKEN}, token(sandbox, "delivery_app")
    paths = {
        "location": ("/v1/location", pos),
        "account": ("/v1/accounts/pizza2", account),
        "lyon": ("/v1/locations/pizza2-7", account),
        "catalog": ("/v1/catalogs/menu22", pos),
        "customer": ("/v1/customer_lists/regs22/customers/cust22", pos),
        "card": ("/v1/customer_lists/regs22/loyalty_cards/card22", pos),
    }
    found = {}
    for name, (path, headers) in paths.items():
        response = await client.get(path, headers=headers)
        found[name] = (response.status_code, response.json().get("id"))
    return found


EXPECTED_READS = {
    "location": (200, "pizza2-1"),
    "account": (200, "pizza2"),
    "lyon": (200, "pizza2-7"),
    "catalog": (200, "menu22"),
    "customer": (200, "cust22"),
    "card": (200, "card22"),
}


async def test_the_api_finds_each_given_id_with_the_given_token(
    given_sandbox: Sandbox, given_client: httpx.AsyncClient
) -> None:
    reads = await _reads(given_client, given_sandbox)
    user = await given_client.get("/v1/user", headers=token(given_sandbox, "profile"))
    assert {**reads, "user": (user.status_code, user.json()["id"])} == {**EXPECTED_READS, "user": (200, "gina22")}


async def _token_endpoint(client: httpx.AsyncClient, sandbox: Sandbox, secret: str) -> httpx.Response:
    """The authorisation code flow of the `pos` application, its code exchanged with `secret`."""
    owner = sandbox.answer["users"]["owner"]
    client.cookies.clear()  # signed out: the flow starts with the login form
    url = "/oauth2/v1/authorize?" + str(
        httpx.QueryParams(client_id="caisse", redirect_uri="http://127.0.0.1:8081/callback", scope="profile")
    )
    action, hidden = form_of((await client.get(url)).text)
    logged_in = await client.post(action, data={**hidden, "email": owner["email"], "password": owner["password"]})
    action, hidden = form_of((await client.get(logged_in.headers["location"])).text)
    allowed = await client.post(action, data={**hidden, "step": "allow"})
    code = query_of(allowed.headers["location"])["code"]
    return await client.post(
        "/oauth2/v1/token", data={"grant_type": "authorization_code", "code": code}, auth=("caisse", secret)
    )


async def test_the_given_client_secret_authenticates_at_the_token_endpoint(
    given_sandbox: Sandbox, given_client: httpx.AsyncClient
) -> None:
    exchanged = await _token_endpoint(given_client, given_sandbox, POS_SECRET)
    assert exchanged.status_code == 200
    assert exchanged.json()["scope"] == "profile"
    refused = await _token_endpoint(given_client, given_sandbox, POS_SECRET.upper())
    assert (refused.status_code, refused.json()["error"]) == (401, "invalid_client")


async def test_callbacks_of_the_given_application_are_signed_with_the_given_secret(
    given_client: httpx.AsyncClient, receiver: Receiver
) -> None:
    pos = {"X-Access-Token": POS_TOKEN}
    subscribed = await given_client.post(
        "/v1/callback", json={"url": receiver.url("/pos"), "events": {"order": ["create"]}}, headers=pos
    )
    assert subscribed.status_code == 200
    tested = await given_client.post("/v1/callback/test", headers=pos)
    assert tested.status_code == 200
    [got] = await asyncio.to_thread(receiver.wait_for, "/pos", 1)
    expected = hmac.new(POS_SECRET.encode(), got.body, hashlib.sha256).hexdigest()
    assert got.headers["X-Service-Hmac-SHA256"] == expected


async def test_given_ids_and_tokens_are_the_same_after_a_reset(
    given_sandbox: Sandbox, given_client: httpx.AsyncClient
) -> None:
    pos = {"X-Access-Token": POS_TOKEN}
    made = await given_client.post("/v1/customer_lists/regs22/customers", json={"first_name": "Zed"}, headers=pos)
    assert made.status_code == 200
    revoked = await given_client.post("/oauth2/v1/revoke", data={"token": POS_TOKEN}, auth=("caisse", POS_SECRET))
    assert revoked.status_code == 200
    assert (await given_client.get("/v1/location", headers=pos)).status_code == 401

    reset = await given_client.post("/sandbox/reset")
    assert reset.status_code == 200
    assert reset.json() == given_sandbox.answer
    assert await _reads(given_client, given_sandbox) == EXPECTED_READS
    again = await given_client.post("/v1/customer_lists/regs22/customers", json={"first_name": "Zed"}, headers=pos)
    assert again.json()["id"] == made.json()["id"]  # the sequences back where the seed left them
    assert (await _token_endpoint(given_client, given_sandbox, POS_SECRET)).status_code == 200


async def test_ids_not_given_are_the_same_at_every_start_and_on_either_database(
    base_settings: Settings, given_sandbox: Sandbox, write_seed: Callable[[dict[str, Any]], Seed]
) -> None:
    other, _key = await start(base_settings, write_seed(given()), None)  # a temporary SQLite file
    await other.close()
    assert other.answer == given_sandbox.answer
    assert other.answer["customers"]["bruno"] == given_sandbox.answer["customers"]["bruno"]


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_an_entry_after_a_given_id_takes_the_key_after_it(
    base_settings: Settings, write_seed: Callable[[dict[str, Any]], Seed], db_kind: str
) -> None:
    """docs/sandbox.md: the rows the table gives after a given id, from the seed or the API,
    take keys above it."""
    from comptoir.kit import ids

    started, _key = await start(base_settings, write_seed(given()), None)
    await started.close()
    alice = ids.decode("customer", "cust22")
    assert alice is not None
    assert ids.decode("customer", started.answer["customers"]["bruno"]) == alice + 1


# --- refusals -------------------------------------------------------------------------------


def _with(change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    data = given()
    change(data)
    return data


def _customer(data: dict[str, Any], i: int) -> dict[str, Any]:
    return data["customer_lists"][0]["customers"][i]  # type: ignore[no-any-return]


REFUSED = [
    (
        lambda d: d["users"][0].update(id="gina2"),
        "users[0].id: 'gina2' is not an id: 6 characters, each one of 23456789abcdefghijkmnpqrstuvwxyz",
    ),
    (
        lambda d: d["catalogs"][0].update(id="menu-1"),
        "catalogs[0].id: 'menu-1' is not an id: 6 characters, each one of 23456789abcdefghijkmnpqrstuvwxyz",
    ),
    (
        lambda d: d["catalogs"][0].update(id="pizza2-1"),  # a location's
        "catalogs[0].id: 'pizza2-1' is not an id: 6 characters, each one of 23456789abcdefghijkmnpqrstuvwxyz",
    ),
    (
        lambda d: d["accounts"][0].update(id=42),
        "accounts[0].id: must be a string",
    ),
    (
        lambda d: d["locations"][0].update(id="pizza2"),  # an account's
        "locations[0].id: 'pizza2' is not a location id: its account's id, a dash and a number ('pizza2-1')",
    ),
    (
        lambda d: d["locations"][0].update(id="pizza2-01"),
        "locations[0].id: 'pizza2-01' is not a location id: its account's id, a dash and a number ('pizza2-1')",
    ),
    (
        lambda d: d["locations"][0].update(id="gina22-1"),  # another account's prefix
        "locations[0].id: 'gina22-1' is not an id of a location of account 'pizzeria': a location's id is its"
        " account's id ('pizza2'), a dash and a number",
    ),
    (
        lambda d: d["locations"][1].update(id="pizza2-1"),  # Paris took number 1
        "locations[1].id: 'pizza2-1' is the id of an earlier entry (locations[0])",
    ),
    (
        lambda d: _customer(d, 1).update(id="cust22"),
        "customer_lists[0].customers[1].id: 'cust22' is the id of an earlier entry (customer_lists[0].customers[0])",
    ),
    (
        lambda d: d["applications"][2].update(client_id="caisse"),
        "applications[2].client_id: 'caisse' is the id of an earlier entry (applications[1])",
    ),
    (
        lambda d: d["connections"][0].update(access_token="short"),
        "connections[0].access_token: must be 8 to 256 characters",
    ),
    (
        lambda d: d["connections"][0].update(access_token="x" * 257),
        "connections[0].access_token: must be 8 to 256 characters",
    ),
    (
        lambda d: d["connections"][0].update(access_token="has space"),
        "connections[0].access_token: must be letters, digits and - . _ ~ + / only, then = only at the end"
        " (RFC 6750 b64token)",
    ),
    (
        lambda d: d["applications"][0].update(client_secret="a=b-secret"),
        "applications[0].client_secret: must be letters, digits and - . _ ~ + / only, then = only at the end"
        " (RFC 6750 b64token)",
    ),
    (
        lambda d: d["connections"][2].update(access_token=POS_TOKEN),
        "connections[2].access_token: is the access token of an earlier entry (connections[1])",
    ),
    (
        lambda d: d["applications"][2].update(client_secret=POS_SECRET),
        "applications[2].client_secret: is the client secret of an earlier entry (applications[1])",
    ),
    (
        lambda d: d["connections"][1].update(id="conn22"),
        "connections[1].id: is not a field of this entry (docs/sandbox.md)",
    ),
]


@pytest.mark.parametrize(("change", "message"), REFUSED)
@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_a_bad_given_id_or_token_is_refused_and_nothing_starts(
    base_settings: Settings,
    write_seed: Callable[[dict[str, Any]], Seed],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[dict[str, Any]], Any],
    message: str,
    db_kind: str,
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seed = write_seed(_with(change))
    with pytest.raises(SeedError) as refused:
        await start(base_settings, seed, None)
    assert str(refused.value) == f"{seed.path}: {message}"
    assert _left(tmp_path) == []


def _left(directory: Path) -> list[Path]:
    return list(directory.glob("comptoir-sandbox-*"))


@pytest.mark.parametrize(("change", "message"), [REFUSED[6], REFUSED[8]])
async def test_a_bad_given_id_is_refused_alike_on_either_database(
    base_settings: Settings,
    write_seed: Callable[[dict[str, Any]], Seed],
    sandbox_url: str | None,
    change: Callable[[dict[str, Any]], Any],
    message: str,
) -> None:
    seed = write_seed(_with(change))
    with pytest.raises(SeedError) as refused:
        await start(base_settings, seed, sandbox_url)
    assert str(refused.value) == f"{seed.path}: {message}"


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_an_entry_authorising_an_earlier_connection_again_cannot_give_it_another_token(
    base_settings: Settings, write_seed: Callable[[dict[str, Any]], Seed], db_kind: str
) -> None:
    data = given()
    again = {key: value for key, value in data["connections"][1].items() if key != "callback"}
    data["connections"].append({**again, "key": "pos_again", "access_token": "another-given-token"})
    seed = write_seed(data)
    with pytest.raises(SeedError) as refused:
        await start(base_settings, seed, None)
    assert str(refused.value) == (
        f"{seed.path}: connections[4].access_token: this entry authorises the connection of connections[1] again"
        " (the same application, location or account and name), which keeps its token"
    )


async def test_regenerating_the_given_client_secret_replaces_it(
    given_sandbox: Sandbox, given_client: httpx.AsyncClient
) -> None:
    from comptoir.applications.service import client_secret, find_client, regenerate_secret
    from comptoir.db.server_key import load_data_key

    key = await load_data_key(given_sandbox.db, given_sandbox.settings.server_key())
    async with given_sandbox.db.transaction() as session:
        client = await find_client(session, "caisse")
        assert client is not None
        await regenerate_secret(session, client)
        new = client_secret(key, client)
    assert new != POS_SECRET
    assert (await _token_endpoint(given_client, given_sandbox, POS_SECRET)).status_code == 401
    assert (await _token_endpoint(given_client, given_sandbox, new)).status_code == 200
