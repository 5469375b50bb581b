"""`kit.crypto.seeds_from`: the sandbox's stable tokens and secrets (docs/sandbox.md "Ids,
tokens and secrets"); everywhere else seeds stay random."""

from __future__ import annotations

from comptoir.kit import crypto


def test_seeds_drawn_under_one_label_are_the_same_every_time() -> None:
    with crypto.seeds_from("connection:pos"):
        first = [crypto.new_seed(), crypto.new_seed()]
    with crypto.seeds_from("connection:pos"):
        again = [crypto.new_seed(), crypto.new_seed()]
    assert first == again
    assert first[0] != first[1]
    assert len(first[0]) == 32


def test_another_label_draws_other_seeds() -> None:
    with crypto.seeds_from("connection:pos"):
        pos = crypto.new_seed()
    with crypto.seeds_from("connection:site"):
        site = crypto.new_seed()
    assert pos != site


def test_outside_a_label_seeds_are_random() -> None:
    with crypto.seeds_from("connection:pos"):
        fixed = crypto.new_seed()
    assert crypto.new_seed() != fixed
    assert crypto.new_seed() != crypto.new_seed()


KEY, OTHER_KEY = b"k" * 32, b"o" * 32


def test_the_first_seed_under_a_label_is_the_given_one_then_the_labels_own() -> None:
    given = crypto.given_seed(KEY, "access-token", "pos-given-token")
    with crypto.seeds_from("connection:pos", given):
        drawn = [crypto.new_seed(), crypto.new_seed()]
    with crypto.seeds_from("connection:pos"):
        own = [crypto.new_seed(), crypto.new_seed()]
    assert drawn == [given, own[1]]


def test_a_given_seed_gives_the_text_it_was_given_for_its_purpose() -> None:
    seed = crypto.given_seed(KEY, "access-token", "pos-given-token")
    assert seed.startswith("given:")
    assert "pos-given-token" not in seed
    assert crypto.secret_of(KEY, "access-token", seed) == "pos-given-token"


def test_a_given_seed_of_the_longest_secret_fits_its_column() -> None:
    seed = crypto.given_seed(KEY, "client-secret", "x" * 256)
    assert len(seed) <= crypto.GIVEN_SEED_LENGTH
    assert crypto.secret_of(KEY, "client-secret", seed) == "x" * 256


def test_a_derived_seed_gives_the_derived_secret_as_before() -> None:
    seed = "0f" * 16
    assert crypto.secret_of(KEY, "access-token", seed) == crypto.derive(KEY, "access-token", seed)
