"""docs/architecture.md "Secrets": tokens and client secrets are never stored in clear, yet
re-authorisation returns the same token."""

from __future__ import annotations

from comptoir.connections.service import client_secret
from tests.factories import World


async def test_no_token_or_secret_appears_in_any_table(world: World) -> None:
    location = await world.location()
    client = await world.client()
    token = await world.token("location[orders.read]", location=location, client=client)
    secret = client_secret(world.key, client)
    dump = repr(await world.snapshot())
    assert token not in dump
    assert secret not in dump
    assert await world.token("location[orders.write]", location=location, client=client) == token


async def test_another_server_key_gives_other_tokens(world: World) -> None:
    location = await world.location()
    client = await world.client()
    token = await world.token("location[orders.read]", location=location, client=client)
    other = World(world.db, b"another-key")
    assert await other.token("location[orders.read]", location=location, client=client) != token
