"""Verifying a Comptoir callback, with the standard library only (docs/api/callbacks-events.md
"Verifying a callback").

Run: CLIENT_SECRET=... SIGNING_SECRET=whsec_... uv run python examples/verify_callback.py
then register http://<this host>:8002/hook as the callback (POST /v1/callback) and send a
test event (POST /v1/callback/test): each verified event is printed, anything else answered 400.
"""

import base64
import hashlib
import hmac
import json
import os
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE = 5 * 60  # seconds a webhook-timestamp may differ from this machine's clock


def verify_hmac(client_secret: str, body: bytes, header: str) -> bool:
    """X-Service-Hmac-SHA256: lowercase hex HMAC-SHA-256 of the raw body, keyed with the
    client secret as UTF-8; no timestamp."""
    expected = hmac.new(client_secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header)


def verify_standard(signing_secret: str, headers: dict[str, str], body: bytes, now: float | None = None) -> bool:
    """Standard Webhooks: `v1,<base64 HMAC-SHA-256>` of "<webhook-id>.<webhook-timestamp>.<body>",
    keyed with the bytes of the secret after `whsec_`; any of the space-separated signatures
    may match, and the timestamp must be within TOLERANCE of now."""
    headers = {name.lower(): value for name, value in headers.items()}
    webhook_id, timestamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    if not webhook_id or not timestamp.isdigit():
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE:
        return False  # too old (a replayed request) or from the future
    key = base64.b64decode(signing_secret.removeprefix("whsec_"))
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    expected = "v1," + base64.b64encode(hmac.digest(key, signed, "sha256")).decode()
    return any(hmac.compare_digest(expected, given) for given in headers.get("webhook-signature", "").split(" "))


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))  # the raw bytes, unparsed
        headers = dict(self.headers.items())
        hmac_ok = verify_hmac(os.environ["CLIENT_SECRET"], body, headers.get("X-Service-Hmac-SHA256", ""))
        standard_ok = verify_standard(os.environ["SIGNING_SECRET"], headers, body)
        if not (hmac_ok and standard_ok):
            self.send_response(400)  # 400-499 acknowledges: a forged request is not sent again
        else:
            event = json.loads(body)
            again = " (a redelivery)" if headers.get("comptoir-redelivery") == "true" else ""
            print(f"verified {event['id']}: {event['resource_type']}.{event['event_type']}{again}", flush=True)
            self.send_response(200)  # deduplicate on webhook-id: delivery is at least once
        self.send_header("Content-Length", "0")
        self.end_headers()


if __name__ == "__main__":
    HTTPServer(("0.0.0.0", int(os.environ.get("PORT", "8002"))), Receiver).serve_forever()  # noqa: S104
