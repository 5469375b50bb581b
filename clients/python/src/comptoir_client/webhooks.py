"""Receiving callback deliveries (docs/api/callbacks-events.md "Delivery"): check the signature,
then read the body as a typed event.

Two schemes, both HMAC-SHA256 over the raw body, both compared in constant time:

- `X-Service-Hmac-SHA256`: the lowercase hex HMAC of the body, keyed with the client secret
  (UTF-8). `verify_hmac(body, headers, client_secret)`.
- Standard Webhooks: `webhook-id` (the event id), `webhook-timestamp` (unix seconds) and
  `webhook-signature`, space-separated `v1,<base64 HMAC of "<id>.<timestamp>.<body>">` keyed
  with the base64 secret after `whsec_` (read it with `client.callback.signing_secret()`).
  `verify_standard(body, headers, secret)` accepts when any signature matches any secret given
  (pass the previous one too while a rotation settles) and the timestamp is within `tolerance`
  seconds of now.

Pass the body exactly as received (bytes), before any JSON parsing.

`signed_headers` makes what the two checks read, as a delivery carries it: `comptoir-listen`
(listen.py) signs the events it forwards with it, so a receiver verifies them unchanged.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from comptoir_client.errors import WebhookVerificationError
from comptoir_client.models import Event

DEFAULT_TOLERANCE = 300  # seconds either side of now


@dataclass(frozen=True)
class Delivery:
    """A verified delivery: its event, its id (deduplicate on it: delivery is at least once),
    and whether it is a manual resend (`comptoir-redelivery: true`)."""

    event: Event
    event_id: str
    redelivery: bool


def _lower(headers: Mapping[str, str]) -> dict[str, str]:
    return {key.lower(): value for key, value in headers.items()}


def _delivery(body: bytes, event_id: str, headers: dict[str, str]) -> Delivery:
    event = Event.model_validate_json(body)
    redelivery = headers.get("comptoir-redelivery", "").strip().lower() == "true"
    return Delivery(event, event_id or event.id, redelivery)


def hmac_signature(body: bytes, client_secret: str) -> str:
    """The `X-Service-Hmac-SHA256` value of `body`."""
    return hmac.new(client_secret.encode(), body, hashlib.sha256).hexdigest()


def verify_hmac(body: bytes, headers: Mapping[str, str], client_secret: str) -> Delivery:
    """The delivery, once its `X-Service-Hmac-SHA256` proves it came from Comptoir."""
    lower = _lower(headers)
    sent = lower.get("x-service-hmac-sha256", "")
    if not sent or not hmac.compare_digest(sent.encode(), hmac_signature(body, client_secret).encode()):
        raise WebhookVerificationError("X-Service-Hmac-SHA256 does not match the body")
    return _delivery(body, lower.get("x-event-id", ""), lower)


def _key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except (binascii.Error, ValueError):
        raise WebhookVerificationError("the signing secret is not base64 after whsec_") from None


def standard_signature(body: bytes, event_id: str, timestamp: int, secret: str) -> str:
    """One `webhook-signature` entry (`v1,<base64>`) for this body, id and time."""
    signed = f"{event_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(_key(secret), signed, hashlib.sha256).digest()).decode()


def signed_headers(
    body: bytes, event_id: str, *, client_secret: str, signing_secret: str | Sequence[str], timestamp: int
) -> dict[str, str]:
    """The headers of a delivery of `body` (beside User-Agent), both schemes: `signing_secret`
    one secret or several, newest first (one `webhook-signature` entry each)."""
    secrets = [signing_secret] if isinstance(signing_secret, str) else list(signing_secret)
    return {
        "Content-Type": "application/json",
        "X-Service-Hmac-SHA256": hmac_signature(body, client_secret),
        "X-Event-Id": event_id,
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(standard_signature(body, event_id, timestamp, one) for one in secrets),
    }


def verify_standard(
    body: bytes,
    headers: Mapping[str, str],
    secret: str | Sequence[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> Delivery:
    """The delivery, once a `webhook-signature` entry matches one of `secret` and its
    `webhook-timestamp` lies within `tolerance` seconds of `now` (against replays)."""
    lower = _lower(headers)
    event_id, stamp, signatures = (lower.get(f"webhook-{k}", "") for k in ("id", "timestamp", "signature"))
    if not event_id or not stamp or not signatures:
        raise WebhookVerificationError("webhook-id, webhook-timestamp and webhook-signature are required")
    try:
        timestamp = int(stamp)
    except ValueError:
        raise WebhookVerificationError(f"webhook-timestamp is not a number: {stamp}") from None
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        raise WebhookVerificationError(f"webhook-timestamp {timestamp} is outside the tolerance of {tolerance} s")
    expected = [
        standard_signature(body, event_id, timestamp, one)
        for one in ([secret] if isinstance(secret, str) else list(secret))
    ]
    sent = [entry.encode() for entry in signatures.split(" ") if entry.startswith("v1,")]
    if not any(hmac.compare_digest(given, wanted.encode()) for given in sent for wanted in expected):
        raise WebhookVerificationError("no webhook-signature matches the body")
    return _delivery(body, event_id, lower)


def verify(
    body: bytes,
    headers: Mapping[str, str],
    *,
    client_secret: str | None = None,
    signing_secret: str | Sequence[str] | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
) -> Delivery:
    """Either scheme: Standard Webhooks when the delivery carries `webhook-signature` and a
    `signing_secret` is given, else `X-Service-Hmac-SHA256` with `client_secret`."""
    lower = _lower(headers)
    if signing_secret is not None and "webhook-signature" in lower:
        return verify_standard(body, lower, signing_secret, tolerance=tolerance)
    if client_secret is not None:
        return verify_hmac(body, lower, client_secret)
    raise WebhookVerificationError("no secret given for the signature this delivery carries")
