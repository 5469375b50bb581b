"""Signing callbacks (docs/api/callbacks-events.md "Verifying a callback").

Every POST carries two signatures of its raw body:
- `X-Service-Hmac-SHA256`: lowercase hex HMAC-SHA-256 keyed with the client secret;
- the Standard Webhooks headers: `webhook-id` (the event id), `webhook-timestamp` (integer
  Unix seconds of this attempt) and `webhook-signature`, `v1,<base64 HMAC-SHA-256>` of
  `<webhook-id>.<webhook-timestamp>.<body>` keyed with the callback's signing secret (the
  bytes that `whsec_<base64>` encodes); after a rotation, one signature per live secret,
  space-separated, the newest first.

A signing secret is 24 random bytes, stored sealed under the server key and bound to its
connection (`seal`, `unseal`); it is never logged.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.callbacks import repository
from comptoir.kit.crypto import Sealer

PREFIX = "whsec_"
SECRET_BYTES = 24
ROTATION_OVERLAP = timedelta(hours=24)  # the previous secret still signs this long
REDELIVERY_HEADER = "comptoir-redelivery"
_PURPOSE = "callback-signing-secret"

# benchmarks/callbacks.py measures the Standard Webhooks headers' cost by turning them off here
STANDARD_WEBHOOKS = True


def new_secret() -> bytes:
    return secrets.token_bytes(SECRET_BYTES)


def as_text(secret: bytes) -> str:
    """The secret as a client reads it: `whsec_` and standard base64."""
    return PREFIX + base64.b64encode(secret).decode()


def seal(key: bytes, connection_id: int, secret: bytes) -> bytes:
    return Sealer(key, _PURPOSE).seal(secret, str(connection_id).encode())


def unseal(key: bytes, connection_id: int, sealed: bytes | None) -> bytes | None:
    """The secret, or None when there is none (or it was sealed under another server key)."""
    if sealed is None:
        return None
    return Sealer(key, _PURPOSE).open(sealed, str(connection_id).encode())


def live_keys(
    key: bytes,
    connection_id: int,
    current: bytes | None,
    previous: bytes | None,
    previous_expires_at: datetime | None,
    now: datetime,
) -> list[bytes]:
    """The secrets that sign now, newest first."""
    keys = [k for k in (unseal(key, connection_id, current),) if k is not None]
    if previous_expires_at is not None and previous_expires_at > now:
        old = unseal(key, connection_id, previous)
        if old is not None:
            keys.append(old)
    return keys


class Signed(Protocol):
    """What the signing secrets are read from: a callback, or the worker's claimed lane row."""

    connection_id: int
    signing_secret: bytes | None
    previous_secret: bytes | None
    previous_secret_expires_at: datetime | None


async def keys_of(session: AsyncSession, key: bytes, callback: Signed, now: datetime) -> list[bytes]:
    """The secrets that sign now, newest first; a callback made before signing secrets (or
    sealed under another server key) gets one, written in `session`."""
    keys = live_keys(
        key,
        callback.connection_id,
        callback.signing_secret,
        callback.previous_secret,
        callback.previous_secret_expires_at,
        now,
    )
    if not keys:
        keys = [new_secret()]
        await repository.set_signing_secret(session, callback.connection_id, seal(key, callback.connection_id, keys[0]))
    return keys


def hmac_header(client_secret: bytes, body: bytes) -> str:
    return hmac.new(client_secret, body, hashlib.sha256).hexdigest()


def signature(keys: Sequence[bytes], webhook_id: str, timestamp: int, body: bytes) -> str:
    """`webhook-signature`: one `v1,<base64>` per key, space-separated."""
    signed = b"%s.%d.%s" % (webhook_id.encode(), timestamp, body)
    return " ".join("v1," + base64.b64encode(hmac.digest(k, signed, "sha256")).decode() for k in keys)


def headers(
    client_secret: bytes, keys: Sequence[bytes], event_id: str, timestamp: int, body: bytes, *, redelivery: bool
) -> dict[str, str]:
    """The headers of one POST of `body` (beside Content-Type and User-Agent)."""
    out = {
        "Content-Type": "application/json",
        "X-Service-Hmac-SHA256": hmac_header(client_secret, body),
        "X-Event-Id": event_id,
    }
    if STANDARD_WEBHOOKS and keys:
        out["webhook-id"] = event_id
        out["webhook-timestamp"] = str(timestamp)
        out["webhook-signature"] = signature(keys, event_id, timestamp, body)
    if redelivery:
        out[REDELIVERY_HEADER] = "true"
    return out
