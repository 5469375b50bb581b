"""`comptoir demo`: the shape docs/operations.md "Commands" gives, the same output every time."""

from __future__ import annotations

from collections.abc import Callable

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
