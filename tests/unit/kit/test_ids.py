"""docs/api/conventions.md "Ids": short lowercase base-32 ids, unique per resource type."""

from __future__ import annotations

import asyncio
import re

from hypothesis import given
from hypothesis import strategies as st

from comptoir.kit import ids
from comptoir.models.locations import location_public_id, parse_location_id

ALPHABET = re.compile(r"[23456789abcdefghijkmnpqrstuvwxyz]{6}")


@given(st.integers(min_value=1, max_value=2**30 - 1))
def test_ids_are_six_unambiguous_characters_and_decode_back(pk: int) -> None:
    public = ids.encode("order", pk)
    assert ALPHABET.fullmatch(public)
    assert ids.decode("order", public) == pk


@given(st.integers(min_value=2**30, max_value=2**60))
def test_beyond_a_billion_ids_grow_and_stay_unique(pk: int) -> None:
    public = ids.encode("order", pk)
    assert len(public) >= 7
    assert ids.decode("order", public) == pk


def test_consecutive_keys_do_not_look_consecutive_and_never_collide() -> None:
    encoded = [ids.encode("customer", pk) for pk in range(1, 50001)]
    assert len(set(encoded)) == 50000
    assert ids.encode("customer", 1)[:3] != ids.encode("customer", 2)[:3]


def test_ids_differ_between_resource_types() -> None:
    assert ids.encode("order", 1) != ids.encode("customer", 1)


def test_foreign_strings_decode_to_nothing() -> None:
    for bad in ("", "abc", "ABCDEF", "0o1l00", "abcdef-", "x" * 20, "2222222"):
        assert ids.decode("order", bad) is None


def test_location_ids_are_account_id_dash_number() -> None:
    account = ids.encode("account", 42)
    assert location_public_id(42, 3) == f"{account}-3"
    assert parse_location_id(f"{account}-3") == (42, 3)
    for bad in (
        f"{account}-0",
        f"{account}-03",
        f"{account}-",
        f"{account}3",
        f"{account}-x",
        "-3",
        f"{account}-1234567890",
    ):
        assert parse_location_id(bad) is None


def test_encode_many_gives_the_same_ids_as_encode_with_and_without_tables() -> None:
    few = [1, 2, 3, 1000, 2**30 - 1, 2**30, 2**40]
    many = [*range(7_000, 13_000), 2**30 + 5]
    assert ids.encode_many("test_kind_few", few) == [ids.encode("test_kind_few", pk) for pk in few]
    assert ids.encode_many("test_kind_many", many) == [ids.encode("test_kind_many", pk) for pk in many]
    assert ids.encode_many("test_kind_many", few) == [ids.encode("test_kind_many", pk) for pk in few]  # tabulated now


def test_a_kind_in_heavy_use_gets_tables_and_the_same_ids() -> None:
    kind = "test_kind_hot"
    keys = [*range(1, ids.TABULATE_AFTER + 50), 2**30 - 1, 123_456_789]
    computed = [ids._to_base32(ids._permute(pk, kind), 6) for pk in keys]  # the round function itself
    assert [ids.encode(kind, pk) for pk in keys] == computed
    assert kind in ids._TABLES
    assert [ids.encode(kind, pk) for pk in keys] == computed  # now from its tables
    assert [ids.decode(kind, public_id) for public_id in computed] == keys
    assert ids.decode(kind, ids.encode(kind, 2**30)) == 2**30


def test_decoding_in_heavy_use_gets_tables_and_the_same_keys() -> None:
    kind = "test_kind_read"
    keys = list(range(1, ids.TABULATE_AFTER + 50))
    public_ids = [ids._to_base32(ids._permute(pk, kind), 6) for pk in keys]
    assert [ids.decode(kind, public_id) for public_id in public_ids] == keys
    assert kind in ids._TABLES
    assert [ids.decode(kind, public_id) for public_id in public_ids[:100]] == keys[:100]


async def test_in_a_serving_process_a_kind_is_tabulated_off_the_request_path_in_short_steps() -> None:
    # Building a kind's tables is 4 x 32,768 hashes (about 0.1 s): done in one go inside the
    # request that crossed TABULATE_AFTER, it held that request and every other one of its
    # process. With an event loop running, the crossing call answers at once and the tables
    # are built by a task that gives the loop back between steps.
    kind = "test_kind_served"
    keys = list(range(1, ids.TABULATE_AFTER + 50))
    computed = [ids._to_base32(ids._permute(pk, kind), 6) for pk in keys]
    turns = 0
    stop = asyncio.Event()

    async def other_requests() -> None:
        nonlocal turns
        while not stop.is_set():
            turns += 1
            await asyncio.sleep(0)

    beside = asyncio.create_task(other_requests())
    assert [ids.encode(kind, pk) for pk in keys] == computed
    assert kind not in ids._TABLES  # not built inside the call that crossed the count
    assert [ids.decode(kind, public_id) for public_id in computed] == keys  # the same keys meanwhile
    before = turns
    await ids._building[kind]
    stop.set()
    await beside
    assert kind in ids._TABLES
    assert turns - before >= ids.TABLE_STEPS  # the loop ran between the steps
    assert [ids.encode(kind, pk) for pk in range(ids.TABULATE_AFTER + 50, ids.TABULATE_AFTER + 90)] == [
        ids._to_base32(ids._permute(pk, kind), 6) for pk in range(ids.TABULATE_AFTER + 50, ids.TABULATE_AFTER + 90)
    ]
    assert [ids.decode(kind, public_id) for public_id in computed[:100]] == keys[:100]


async def test_tables_built_under_a_key_that_changed_meanwhile_are_never_used() -> None:
    kind = "test_kind_rekeyed"
    old = ids.current_key()
    assert old is not None
    for pk in range(1, ids.TABULATE_AFTER + 1):
        ids.encode(kind, pk)
    building = ids._building[kind]
    ids.use_key(old + "-other")
    try:
        await asyncio.gather(building, return_exceptions=True)
        assert kind not in ids._TABLES
        assert ids.encode(kind, 7) == ids._to_base32(ids._permute(7, kind), 6)
    finally:
        ids.use_key(old)
    assert kind not in ids._TABLES
    assert ids.encode(kind, 7) == ids._to_base32(ids._permute(7, kind), 6)
