"""docs/architecture.md "Secrets": argon2id passwords; tokens derived from the server key, only
their HMAC stored."""

from __future__ import annotations

from comptoir.kit import crypto


def test_passwords_are_argon2id_hashes_that_verify() -> None:
    hashed = crypto.hash_password("correct horse")
    assert hashed.startswith("$argon2id$")
    assert "correct horse" not in hashed
    assert crypto.verify_password(hashed, "correct horse")
    assert not crypto.verify_password(hashed, "wrong horse")
    assert not crypto.verify_password("not a hash", "correct horse")


def test_derived_secrets_depend_on_key_purpose_and_seed() -> None:
    token = crypto.derive(b"key", "access-token", "seed")
    assert len(token) == 32
    assert token == crypto.derive(b"key", "access-token", "seed")
    assert token != crypto.derive(b"other key", "access-token", "seed")
    assert token != crypto.derive(b"key", "client-secret", "seed")
    assert token != crypto.derive(b"key", "access-token", "seed2")


def test_the_lookup_hash_needs_the_key_and_hides_the_token() -> None:
    stored = crypto.lookup_hash(b"key", "token-value")
    assert len(stored) == 64
    assert stored != crypto.lookup_hash(b"other", "token-value")
    assert "token-value" not in stored


def test_no_hash_is_checked_against_a_stand_in_and_never_verifies() -> None:
    """A login for an unknown email costs the same argon2 check as a wrong password."""
    assert not crypto.verify_password(None, "")
    assert not crypto.verify_password(None, "correct horse")
    assert crypto._stand_in().startswith("$argon2id$")
