"""Loading a seed file (docs/sandbox.md "The seed file"): every entity made by the API's own
service calls, refusals naming the file and the field with the API's message, and the same
ids and tokens at every start."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from comptoir.config import Settings
from comptoir.sandbox.seed import Seed, SeedError, read_seed
from comptoir.sandbox.service import Sandbox, start
from tests.sandbox.conftest import EXAMPLE, example, token


async def test_the_example_seed_loads_and_its_tokens_work(sandbox: Sandbox, client: httpx.AsyncClient) -> None:
    answer = sandbox.answer
    assert sorted(answer["locations"]) == ["lyon", "paris"]
    assert sorted(answer["connections"]) == ["delivery_app", "ordering_site_paris", "pos_paris"]
    location = await client.get("/v1/location", headers=token(sandbox, "pos_paris"))
    assert location.status_code == 200
    assert location.json()["id"] == answer["locations"]["paris"]
    assert location.json()["opening_hours"]["friday"] == [
        {"from": "11:30", "to": "14:30"},
        {"from": "18:30", "to": "23:00"},
    ]
    assert location.json()["preparation_time"] == 20
    catalog = await client.get(f"/v1/catalogs/{answer['catalogs']['menu']}", headers=token(sandbox, "pos_paris"))
    assert catalog.status_code == 200
    assert len(catalog.json()["data"]["products"]) == 30
    customers = await client.get(
        f"/v1/customer_lists/{answer['customer_lists']['regulars']}/customers", headers=token(sandbox, "pos_paris")
    )
    assert [c["id"] for c in customers.json()] == [answer["customers"]["alice"], answer["customers"]["bruno"]]
    callback = await client.get("/v1/callback", headers=token(sandbox, "delivery_app"))
    assert callback.json()["events"] == {"order": ["create", "update"], "delivery": ["create", "update"]}


async def test_the_seed_records_the_changes_the_api_records(sandbox: Sandbox, client: httpx.AsyncClient) -> None:
    """Each location's PATCH, the catalog's and the list's creation, each customer's: as the
    API's calls record them; callbacks are set last, so none of them is pending for anyone."""
    async with sandbox.db.transaction(write=False) as session:
        rows = (await session.execute(text("SELECT resource_type, event_type FROM changes ORDER BY id"))).all()
    assert [tuple(row) for row in rows] == [
        ("location", "update"),
        ("location", "update"),
        ("catalog", "create"),
        ("customer_list", "create"),
        ("customer", "create"),
        ("customer", "create"),
    ]
    for connection in ("pos_paris", "delivery_app"):
        polled = await client.get("/v1/callback/events", headers=token(sandbox, connection))
        assert (polled.status_code, polled.json()) == (200, [])


async def test_the_seed_gives_the_same_answer_on_either_database(
    base_settings: Settings, sandbox: Sandbox, db_kind: str
) -> None:
    """Ids, tokens and client secrets: the same on SQLite as on PostgreSQL (docs/sandbox.md)."""
    other, _key = await start(base_settings, read_seed(EXAMPLE), None)  # a temporary SQLite file
    await other.close()
    assert other.answer == sandbox.answer


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_the_same_seed_gives_the_same_ids_tokens_and_secrets(base_settings: Settings, db_kind: str) -> None:
    answers = []
    for _ in range(2):
        started, _key = await start(base_settings, read_seed(EXAMPLE), None)
        answers.append(started.answer)
        await started.close()
    assert answers[0] == answers[1]


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_bad_opening_hours_name_the_file_the_field_and_the_apis_message(
    base_settings: Settings, write_seed: Callable[[dict[str, Any]], Seed], sandbox: Sandbox, client: httpx.AsyncClient
) -> None:
    hours = {"monday": [{"from": "11:00", "to": "12:00"}, {"from": "25:00", "to": "23:00"}]}
    api = await client.patch("/v1/location", json={"opening_hours": hours}, headers=token(sandbox, "pos_paris"))
    assert api.status_code == 422
    first = api.json()["errors"][0]
    data = example()
    data["locations"][1]["opening_hours"] = hours
    seed = write_seed(data)
    with pytest.raises(SeedError) as refused:
        await start(base_settings, seed, None)
    assert str(refused.value) == f"{seed.path}: locations[1].{first['field']}: {first['message']}"
    assert first["field"] == "opening_hours.monday[1].from"


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_bad_catalog_data_names_the_field_with_the_apis_message(
    base_settings: Settings, write_seed: Callable[[dict[str, Any]], Seed], sandbox: Sandbox, client: httpx.AsyncClient
) -> None:
    data = example()
    data["catalogs"][0]["data"]["products"][3]["skus"][0]["price"] = "abc"
    api = await client.post(
        f"/v1/accounts/{sandbox.answer['accounts']['pizzeria']}/catalogs",
        json={"name": "Copy", "data": data["catalogs"][0]["data"]},
        headers=token(sandbox, "delivery_app"),
    )
    seed = write_seed(data)
    with pytest.raises(SeedError) as refused:
        await start(base_settings, seed, None)
    assert str(refused.value).startswith(f"{seed.path}: catalogs[0].data.products[3].skus[0].price: ")
    if api.status_code == 422:  # the delivery app may not write catalogs: compare when it may
        assert str(refused.value).endswith(api.json()["errors"][0]["message"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["catalogs"][0].update(location="nice"), "catalogs[0].location: names no earlier entry ('nice')"),
        (
            lambda d: d["locations"][0].pop("key"),
            "locations[0].key: is required: a name other entries and the answer use",
        ),
        (
            lambda d: d["locations"][0].update(hours={}),
            "locations[0].hours: is not a field of this entry (docs/sandbox.md)",
        ),
        (lambda d: d["accounts"][0].update(currency="EURO"), "accounts[0].currency: CURRENCY"),
        (lambda d: d["connections"][0].update(scope="location[orders.fly]"), "connections[0].scope: SCOPE"),
        (
            lambda d: d.update(products=[]),
            "products: is not a section of a seed file (one of users, accounts, locations, catalogs,"
            " customer_lists, applications, connections)",
        ),
    ],
)
@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_a_bad_seed_is_refused_naming_the_field(
    base_settings: Settings, tmp_path: Path, change: Any, message: str, db_kind: str
) -> None:
    data = example()
    change(data)
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SeedError) as refused:
        await start(base_settings, read_seed(path), None)
    expected = message.replace("CURRENCY", _currency_message("EURO")).replace(
        "SCOPE", _scope_message("location[orders.fly]")
    )
    assert str(refused.value) == f"{path}: {expected}"


def _currency_message(value: str) -> str:
    from comptoir.errors import FieldErrors, check_code
    from comptoir.kit.codes import parse_currency

    errors = FieldErrors()
    check_code(errors, "currency", value, parse_currency)
    return errors.errors[0].message


def _scope_message(value: str) -> str:
    from comptoir.auth.scopes import ScopeError, parse_scope

    try:
        parse_scope(value)
    except ScopeError as exc:
        return str(exc)
    raise AssertionError("a valid scope")


async def test_a_refused_seed_leaves_no_temporary_database(
    base_settings: Settings,
    write_seed: Callable[[dict[str, Any]], Seed],
    sandbox_url: str | None,
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the sandbox's temporary directory made here: another sandbox of the run makes its own
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    before = _temporary_directories()
    data = example()
    data["customer_lists"][0]["customers"][0]["email"] = "not an email"
    with pytest.raises(SeedError) as refused:
        await start(base_settings, write_seed(data), sandbox_url)
    assert ": customer_lists[0].customers[0].email: " in str(refused.value)
    assert _temporary_directories() == before


def _temporary_directories() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("comptoir-sandbox-*"))
