"""The sandbox's log of callback deliveries (docs/sandbox.md "Deliveries"): every POST the
delivery worker makes, with its request as sent and the answer received, held in the sandbox
process's memory (the last `KEPT`), newest first; a reset empties it.

The delivery log of a normal installation (`delivery_attempts`) keeps no request headers and
no body; this one keeps them, in memory, and only in a sandbox: the worker tells it of each
POST (`DeliveryWorker(observe=...)`), and a normal server passes no observer.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import orjson

from comptoir.callbacks.worker import Sent
from comptoir.kit import ids
from comptoir.kit.times import render_datetime
from comptoir.models import Connection, Event

KEPT = 1000  # the newest attempts kept; older ones are forgotten


class DeliveryLog:
    def __init__(self, connection_keys: dict[int, str]) -> None:
        self._connection_keys = connection_keys  # a connection's row id -> its key in the seed
        self._sent: deque[Sent] = deque(maxlen=KEPT)

    def record(self, sent: Sent) -> None:
        self._sent.append(sent)

    def clear(self) -> None:
        self._sent.clear()

    def listing(self, connection: str | None = None, event_type: str | None = None) -> list[dict[str, Any]]:
        """The attempts kept, newest first, of the connection named by its key in the seed or
        its id (when given), of the event type (when given)."""
        shown = []
        for sent in reversed(self._sent):
            if event_type is not None and sent.event_type != event_type:
                continue
            key = self._connection_keys.get(sent.connection_id)
            public_id = ids.encode(Connection.KIND, sent.connection_id)
            if connection is not None and connection not in (key, public_id):
                continue
            shown.append(self._render(sent, key, public_id))
        return shown

    @staticmethod
    def _render(sent: Sent, key: str | None, public_id: str) -> dict[str, Any]:
        outcome = sent.outcome
        try:
            body: Any = orjson.loads(sent.body)
        except orjson.JSONDecodeError:  # never for an event; kept as text all the same
            body = sent.body.decode("utf-8", "replace")
        return {
            "connection": key,
            "connection_id": public_id,
            "event_id": ids.encode(Event.KIND, sent.event_id),
            "event_type": sent.event_type,
            "attempt": sent.attempt,
            "attempted_at": render_datetime(outcome.attempted_at),
            "duration_ms": outcome.duration_ms,
            "request": {"method": "POST", "url": sent.url, "headers": sent.headers, "body": body},
            "response": {"status": outcome.status_code, "body_excerpt": outcome.excerpt, "error": outcome.error},
            "acknowledged": outcome.acknowledged,
        }
