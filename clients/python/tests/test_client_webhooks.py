"""Callback deliveries are verified before they are read (docs/api/callbacks-events.md
"Delivery"). Standard Webhooks vectors come from the `standardwebhooks` package, computed
independently of the client."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime

import pytest
from standardwebhooks import Webhook

from comptoir_client import WebhookVerificationError, verify, verify_hmac, verify_standard

SECRET = "whsec_" + base64.b64encode(b"a signing key of 32 bytes, exact").decode()
OTHER = "whsec_" + base64.b64encode(b"another signing key of 32 bytes!").decode()
EVENT = {"id": "ev7k3x", "resource_type": "order", "event_type": "create", "created_at": "2026-06-24T17:07:53+02:00"}
EVENT |= {"order_id": "or4k3j", "location_id": "4k3jxr-1", "new_state": {"status": "new"}}
BODY = json.dumps(EVENT).encode()
NOW = 1_782_000_000


def standard_headers(secret: str = SECRET, at: int = NOW, body: bytes = BODY) -> dict[str, str]:
    signature = Webhook(secret).sign("ev7k3x", datetime.fromtimestamp(at, UTC), body.decode())
    return {"webhook-id": "ev7k3x", "webhook-timestamp": str(at), "webhook-signature": signature}


def test_a_standard_webhooks_signature_is_accepted_and_the_event_read() -> None:
    delivery = verify_standard(BODY, standard_headers(), SECRET, now=NOW + 10)
    assert (delivery.event_id, delivery.event.order_id, delivery.redelivery) == ("ev7k3x", "or4k3j", False)
    assert delivery.event.new_state == {"status": "new"}


def test_any_matching_signature_of_several_is_accepted_with_either_secret() -> None:
    headers = standard_headers(OTHER)
    headers["webhook-signature"] = "v1,bm90IGl0 " + headers["webhook-signature"]
    assert verify_standard(BODY, headers, [SECRET, OTHER], now=NOW).event_id == "ev7k3x"


def test_a_standard_signature_of_another_secret_or_body_is_refused() -> None:
    with pytest.raises(WebhookVerificationError, match="no webhook-signature matches"):
        verify_standard(BODY, standard_headers(OTHER), SECRET, now=NOW)
    with pytest.raises(WebhookVerificationError, match="no webhook-signature matches"):
        verify_standard(BODY + b" ", standard_headers(), SECRET, now=NOW)


@pytest.mark.parametrize("skew", [-301, 301])
def test_a_timestamp_outside_five_minutes_is_refused(skew: int) -> None:
    with pytest.raises(WebhookVerificationError, match="outside the tolerance of 300 s"):
        verify_standard(BODY, standard_headers(at=NOW + skew), SECRET, now=NOW)


def test_a_manual_resend_is_marked_as_a_redelivery() -> None:
    headers = standard_headers() | {"comptoir-redelivery": "true"}
    assert verify_standard(BODY, headers, SECRET, now=NOW).redelivery is True


def test_an_hmac_signature_is_accepted_whatever_the_case_of_the_header_names() -> None:
    sent = hmac.new(b"client-secret", BODY, hashlib.sha256).hexdigest()
    delivery = verify_hmac(BODY, {"x-service-hmac-sha256": sent, "X-EVENT-ID": "ev7k3x"}, "client-secret")
    assert (delivery.event_id, delivery.event.resource_type) == ("ev7k3x", "order")


def test_an_hmac_signature_of_another_secret_or_a_missing_one_is_refused() -> None:
    sent = hmac.new(b"other", BODY, hashlib.sha256).hexdigest()
    with pytest.raises(WebhookVerificationError, match="does not match"):
        verify_hmac(BODY, {"X-Service-Hmac-SHA256": sent}, "client-secret")
    with pytest.raises(WebhookVerificationError, match="does not match"):
        verify_hmac(BODY, {}, "client-secret")


def test_verify_picks_the_scheme_the_delivery_carries() -> None:
    sent = hmac.new(b"client-secret", BODY, hashlib.sha256).hexdigest()
    assert verify(BODY, {"X-Service-Hmac-SHA256": sent}, client_secret="client-secret").event_id == "ev7k3x"
    fresh = standard_headers(at=int(datetime.now(UTC).timestamp()))
    assert verify(BODY, fresh, client_secret="wrong", signing_secret=SECRET).event_id == "ev7k3x"
