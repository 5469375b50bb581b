"""`comptoir demo`: the shape docs/operations.md "Commands" gives, the same output every time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from comptoir.catalogs.content import EMPTY_DATA
from tests.cli.conftest import Result


def test_demo_prints_its_data_and_is_stable(cli: Callable[..., Result]) -> None:
    first = cli("demo")
    assert first.code == 0
    body = first.json
    assert set(body) == {"user", "client", "account_id", "location_ids", "catalog_id", "customer_list_id", "tokens"}
    assert set(body["user"]) == {"email", "password"}
    assert set(body["client"]) == {"client_id", "client_secret"}
    assert body["location_ids"] == [f"{body['account_id']}-1", f"{body['account_id']}-2"]
    assert set(body["tokens"]) == {"location", "account"}
    assert body["tokens"]["location"] != body["tokens"]["account"]
    assert cli("demo").json == body


def test_the_demos_catalog_and_list_are_made_as_the_api_makes_them(
    cli: Callable[..., Result], snapshot: Callable[[], dict[str, Any]]
) -> None:
    """The same service call as POST .../catalogs and .../customer_lists: the catalog's
    (empty) content row, and each one's create change; a second run makes neither again."""
    body = cli("demo").json
    rows = snapshot()
    made = [(row[2], row[3], row[4]) for row in rows["changes"]]  # resource_type, event_type, ids
    assert made == [
        ("catalog", "create", {"catalog_id": body["catalog_id"], "location_id": body["location_ids"][0]}),
        ("customer_list", "create", {"customer_list_id": body["customer_list_id"]}),
    ]
    assert [(row[1], row[3], row[4], row[5]) for row in rows["catalog_contents"]] == [(EMPTY_DATA, [], [], [])]
    cli("demo")
    again = snapshot()
    assert (again["changes"], again["catalog_contents"]) == (rows["changes"], rows["catalog_contents"])
