"""Abuse of the back office's "New account" and "New location" forms (docs/back-office.md
"Layout, navigation and words", "Errors"): a currency, country or timezone no select offers,
however long or odd, is refused beside its field before anything is written (a value too long
for its column must never reach PostgreSQL, where it would fail the statement), and changes
nothing."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters
from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.web.test_back_office_accounts import post_form
from tests.api.web.test_back_office_login import log_in
from tests.factories import World

ODD = ["EUROS", "E" * 100_000, "€€€", "<script>alert(1)</script>", "eur", "XXX EUR"]


@pytest.mark.parametrize("currency", ODD)
async def test_a_forged_currency_never_reaches_the_database(
    client: httpx.AsyncClient, shop: Shop, world: World, currency: str
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    answer = await post_form(client, "/accounts/new", "/accounts/new", name="Forged", currency=currency)
    assert answer.status_code == 400
    assert 'id="currency-error">Currency: ' in answer.text
    assert "<script>alert(1)" not in answer.text
    assert len(answer.text) < 100_000
    assert await world.snapshot() == before


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("country", "FRA"),
        ("country", "F" * 100_000),
        ("country", "fr"),
        ("country", "<script>alert(1)</script>"),
        ("timezone", "Europe/" + "P" * 100_000),
        ("timezone", "../../../etc/passwd"),
        ("timezone", "Europe/Paris/../../Paris"),
    ],
)
async def test_a_forged_country_or_timezone_never_reaches_the_database(
    client: httpx.AsyncClient, shop: Shop, world: World, field: str, value: str
) -> None:
    await log_in(client, "owner@example.com")
    url = f"/accounts/{shop.account.public_id}/locations/new"
    before = await world.snapshot()
    form = {"name": "Forged", "country": "FR", "timezone": "Europe/Paris", field: value}
    answer = await post_form(client, url, url, **form)
    assert answer.status_code == 400
    assert f'id="{field}-error">{field.capitalize()}: ' in answer.text
    assert "<script>alert(1)" not in answer.text
    assert len(answer.text) < 100_000
    assert await world.snapshot() == before
