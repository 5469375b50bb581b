"""Ids leak nothing: an id does not tell its row number (so an order id does not tell how
many orders an installation holds), and ids, `X-Event-Id` included, are not the same from
one installation to the next (comptoir.kit.ids, migration 0019)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

import pytest

from comptoir.config import Settings
from comptoir.db.engine import Database, create_database
from comptoir.db.migrate import upgrade
from comptoir.kit import ids
from tests import databases
from tests.conftest import SECRET_KEY, postgres_url
from tests.factories import World


def decode_with_the_published_derivation(kind: str, public_id: str) -> int:
    """What anyone reading the source could compute without the installation's key."""
    keys = [hashlib.sha256(f"comptoir-id:{kind}:{r}".encode()).digest()[:16] for r in range(4)]
    n = 0
    for c in public_id:
        n = (n << 5) | ids.ALPHABET.index(c)
    left, right = n >> 15, n & 0x7FFF
    for key in reversed(keys):
        f = int.from_bytes(hashlib.blake2b(left.to_bytes(2, "big"), key=key, digest_size=2).digest(), "big") & 0x7FFF
        left, right = right ^ f, left
    return (left << 15) | right


@pytest.fixture
async def new_installation(db_kind: str, tmp_path) -> AsyncIterator[Database]:  # type: ignore[no-untyped-def]
    name = databases.new_name()
    if db_kind == "sqlite":
        url = f"sqlite:///{tmp_path / name}.db"
    else:
        await databases.create(name)
        url = postgres_url(name)
    db = create_database(Settings(database_url=url, secret_key=SECRET_KEY), pool_size=1)
    await upgrade(db)
    await db.load_id_key()
    yield db
    await db.dispose()
    if db_kind != "sqlite":
        await databases.drop(name)


async def test_decoding_an_id_with_the_published_code_does_not_give_the_row_number(
    new_installation: Database,
) -> None:
    world = World(new_installation, b"k" * 32)
    accounts = [await world.account(name=f"Shop {i}") for i in range(3)]
    assert [account.id for account in accounts] == [1, 2, 3]
    guessed = [decode_with_the_published_derivation("account", account.public_id) for account in accounts]
    assert guessed != [1, 2, 3]
    assert all(ids.decode("account", account.public_id) == account.id for account in accounts)


async def test_an_order_and_an_event_id_of_one_installation_name_nothing_in_another(
    new_installation: Database, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    first = [ids.encode(kind, pk) for kind in ("order", "event") for pk in range(1, 21)]
    other = create_database(Settings(database_url=f"sqlite:///{tmp_path}/other.db", secret_key=SECRET_KEY))
    try:
        await upgrade(other)
        await other.load_id_key()
        second = [ids.encode(kind, pk) for kind in ("order", "event") for pk in range(1, 21)]
    finally:
        await other.dispose()
    assert set(first).isdisjoint(second)
