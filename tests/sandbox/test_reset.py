"""POST /sandbox/reset (docs/sandbox.md "Reset"): the seeded state back, exactly as the API
answers it, without a restart; the seed's tokens work after it."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import httpx
import pytest
from sqlalchemy import text

from comptoir.sandbox.service import Sandbox
from tests.sandbox.conftest import token
from tests.waiting import eventually


async def _answers(client: httpx.AsyncClient, sandbox: Sandbox) -> dict[str, Any]:
    """What the API answers about everything the seed made."""
    made = sandbox.answer
    pos, delivery = token(sandbox, "pos_paris"), token(sandbox, "delivery_app")
    regulars = made["customer_lists"]["regulars"]
    paths = {
        "location": ("/v1/location", pos),
        "lyon": (f"/v1/locations/{made['locations']['lyon']}", delivery),
        "catalog": (f"/v1/catalogs/{made['catalogs']['menu']}", pos),
        "catalogs": ("/v1/location/catalogs", pos),
        "customers": (f"/v1/customer_lists/{regulars}/customers", pos),
        "cards": (f"/v1/customer_lists/{regulars}/loyalty_cards", pos),
        "callback": ("/v1/callback", pos),
        "events": ("/v1/callback/events", pos),
        "orders": ("/v1/location/orders", pos),
        "delivery_orders": (f"/v1/accounts/{made['accounts']['pizzeria']}/orders", delivery),
    }
    answers = {}
    for name, (path, headers) in paths.items():
        response = await client.get(path, headers=headers)
        answers[name] = (response.status_code, response.json())
    return answers


async def test_reset_restores_exactly_the_seeded_state(sandbox: Sandbox, client: httpx.AsyncClient) -> None:
    seeded = await _answers(client, sandbox)
    assert {name: status for name, (status, _) in seeded.items()} == dict.fromkeys(seeded, 200)
    pos = token(sandbox, "pos_paris")
    regulars = sandbox.answer["customer_lists"]["regulars"]
    changes = [
        await client.post(f"/v1/customer_lists/{regulars}/customers", json={"first_name": "Zed"}, headers=pos),
        await client.patch("/v1/location", json={"preparation_time": 45}, headers=pos),
        await client.put(
            f"/v1/catalogs/{sandbox.answer['catalogs']['menu']}", json={"name": "Winter", "data": {}}, headers=pos
        ),
        await client.post("/v1/location/orders", json={"status": "new", "items": []}, headers=pos),
        await client.post("/v1/callback", json={"url": None, "events": {"customer": ["create"]}}, headers=pos),
    ]
    assert [response.status_code for response in changes] == [200, 200, 200, 200, 200]
    assert await _answers(client, sandbox) != seeded

    reset = await client.post("/sandbox/reset")
    assert reset.status_code == 200
    assert reset.json() == sandbox.answer
    assert await _answers(client, sandbox) == seeded


async def test_after_a_reset_new_rows_get_the_ids_they_got_after_the_start(
    sandbox: Sandbox, client: httpx.AsyncClient
) -> None:
    pos = token(sandbox, "pos_paris")
    regulars = sandbox.answer["customer_lists"]["regulars"]
    first = await client.post(f"/v1/customer_lists/{regulars}/customers", json={"first_name": "Zed"}, headers=pos)
    assert (await client.post("/sandbox/reset")).status_code == 200
    again = await client.post(f"/v1/customer_lists/{regulars}/customers", json={"first_name": "Zed"}, headers=pos)
    assert again.json()["id"] == first.json()["id"]


async def test_the_seeds_tokens_work_after_a_reset_even_once_blocked(
    sandbox: Sandbox, client: httpx.AsyncClient
) -> None:
    from comptoir.connections.service import find_connection_by_token, set_blocked

    pos = token(sandbox, "pos_paris")
    async with sandbox.db.transaction() as session:
        connection = await find_connection_by_token(session, sandbox.settings.server_key(), pos["X-Access-Token"])
        assert connection is not None
        await set_blocked(session, connection, True)
    assert (await client.get("/v1/location", headers=pos)).status_code == 401
    assert (await client.post("/sandbox/reset")).status_code == 200
    assert (await client.get("/v1/location", headers=pos)).status_code == 200


@pytest.mark.parametrize("db_kind", ["postgresql"])
async def test_a_reset_postgresql_rolls_back_to_break_a_deadlock_runs_again_and_answers_200(
    sandbox: Sandbox, client: httpx.AsyncClient, sandbox_url: str
) -> None:
    """Another transaction (as a worker recording a delivery would) holds rows the reset
    deletes last, then asks for rows the reset has already deleted: PostgreSQL breaks the
    deadlock by rolling the reset back, and the reset runs again.

    PostgreSQL rolls back the transaction whose wait reaches `deadlock_timeout` while the
    cycle exists, and looks only once. So that it is the reset's, whatever the machine's
    load: the reset's connections look after 3 s (the other has asked for its rows long
    before), the other's after a minute."""
    async with sandbox.db.transaction() as session:
        database = (await session.execute(text("SELECT current_database()"))).scalar_one()
        await session.execute(text(f"ALTER DATABASE \"{database}\" SET deadlock_timeout = '3s'"))
    await sandbox.db.engine.dispose()  # connections made from now on have it
    seeded = await _answers(client, sandbox)
    made = await client.post(
        "/v1/location/orders", json={"status": "new", "items": []}, headers=token(sandbox, "pos_paris")
    )
    assert made.status_code == 200
    with_rows = [table.name for table, rows in sandbox.snapshot.rows if rows]
    deleted_last, deleted_first = with_rows[0], with_rows[-1]
    other = await asyncpg.connect(sandbox_url)
    try:
        await other.execute("SET deadlock_timeout = '60s'")
        transaction = other.transaction()
        await transaction.start()
        await other.execute(f'SELECT 1 FROM "{deleted_last}" FOR UPDATE')
        reset = asyncio.create_task(client.post("/sandbox/reset"))

        async def reset_waits() -> bool:
            waiting = await other.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            return bool(waiting)

        await eventually(reset_waits, "the reset waiting for the rows held")
        # waits for the reset's rows until PostgreSQL rolls the reset back to break the cycle
        await other.execute(f'SELECT 1 FROM "{deleted_first}" FOR UPDATE')
        await transaction.rollback()
        answer = await reset
    finally:
        await other.close()
    assert answer.status_code == 200
    assert answer.json() == sandbox.answer
    assert await _answers(client, sandbox) == seeded  # the order made before it is gone
