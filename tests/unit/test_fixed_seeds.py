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
