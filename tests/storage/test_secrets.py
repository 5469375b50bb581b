"""docs/architecture.md "Secrets": tokens and client secrets are never stored in clear, yet
re-authorisation returns the same token."""

from __future__ import annotations

from comptoir.applications.service import client_secret
from comptoir.connections.service import find_connection_by_token
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


async def test_re_authorising_after_a_key_change_gives_a_token_that_works(world: World) -> None:
    """docs/operations.md "Server key": after a change of key every former token is refused,
    and re-authorising the connection gives a new token that is accepted (not the former
    token's derivation under the new key, which the stored lookup hash would not know)."""
    location = await world.location()
    client = await world.client()
    former = await world.token("location[orders.read]", location=location, client=client)
    rotated = World(world.db, b"another-server-key-of-32-bytes-at-least")
    token = await rotated.token("location[orders.read]", location=location, client=client)
    assert token != former
    async with world.db.transaction() as session:
        found = await find_connection_by_token(session, rotated.key, token)
        assert found is not None
        assert found.location_id == location.id
        assert await find_connection_by_token(session, rotated.key, former) is None
    # and from then on, the same token again (spec 5.5 item 2)
    assert await rotated.token("location[orders.write]", location=location, client=client) == token
