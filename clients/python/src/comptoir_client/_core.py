"""What the sync and async clients share: an operation's description, the retry rules, and how
an answer becomes a model or an exception. Neither client decides anything this module does not.
"""

from __future__ import annotations

import gc
import random
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter
from pydantic_core import to_json

from comptoir_client.errors import TransportError, error_of, retry_after

__version__ = "0.2.0"
T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
# GET, PUT and DELETE change nothing more when repeated; a POST is repeated only with its
# Idempotency-Key (docs/api/conventions.md "Idempotency"), PATCH not at all once sent.
_REPEATABLE = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
# Failures that prove the request never reached the server: safe to resend whatever it was.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True)
class Retries:
    """How hard a call tries. `attempts` bounds the tries after a network error, a 5xx or a 409
    of an idempotent creation still in progress, waiting `backoff` seconds, doubled each time up
    to `max_backoff` (with jitter). A 429 is waited out for its `Retry-After` while the call's
    total wait stays within `max_rate_limit_wait` seconds, else RateLimited is raised."""

    attempts: int = 4
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_rate_limit_wait: float = 60.0

    def delay(self, attempt: int) -> float:
        """The wait before try `attempt + 1` (attempt counts from 1)."""
        base = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return base * (0.5 + random.random() / 2)  # jitter, not a secret


NO_RETRIES = Retries(attempts=1, max_rate_limit_wait=0)


@cache
def one(model: type[M]) -> TypeAdapter[M]:
    return TypeAdapter(model)


@cache
def many(model: type[M]) -> TypeAdapter[list[M]]:
    return TypeAdapter(list[model])  # type: ignore[valid-type]


RAW: TypeAdapter[bytes] = TypeAdapter(bytes)  # a body returned as it came (image data)


@dataclass(frozen=True)
class Op(Generic[T]):
    """One API call: what to send and how to read the answer."""

    method: str
    path: str
    result: TypeAdapter[T]
    body: Any = None
    params: Mapping[str, Any] = field(default_factory=dict)
    create: bool = False  # a POST that creates: sent with an Idempotency-Key
    content: bytes | None = None  # a raw body (an image) instead of JSON
    content_type: str | None = None

    def request(self, headers: Mapping[str, str], idempotency_key: str | None) -> dict[str, Any]:
        """The arguments of httpx's `build_request`; the same on every try of one call."""
        sent = dict(headers)
        if self.create:
            sent["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        content = self.content
        if content is not None:
            sent["Content-Type"] = self.content_type or "application/octet-stream"
        elif self.body is not None:
            content = encode(self.body)
            sent["Content-Type"] = "application/json"
        params = {key: value for key, value in self.params.items() if value is not None}
        return {"method": self.method, "url": self.path, "params": params, "headers": sent, "content": content}

    def parse(self, response: httpx.Response) -> T:
        if self.result is RAW:
            return response.content  # type: ignore[return-value]
        with _collector_paused():
            return self.result.validate_json(response.content)


_pauses = 0
_pause_lock = threading.Lock()
_was_enabled = True


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while an answer becomes models: a page of 100 orders
    is tens of thousands of new objects, and the collector, triggered every 700 allocations,
    would walk them again and again (a third of the time of reading a page). The models hold
    no cycles; reference counting frees what it must meanwhile. Pauses nest across threads
    (the read-ahead's); the collector resumes, if it ran before, when the last one ends."""
    global _pauses, _was_enabled
    with _pause_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()


def encode(body: Any) -> bytes:
    """A request body as JSON: models by their set fields, decimals and times as strings
    (docs/api/conventions.md "Wire formats")."""
    return to_json(_plain(body))


def _plain(body: Any) -> Any:
    if isinstance(body, BaseModel):
        return body.model_dump(mode="json", exclude_unset=True, by_alias=True)
    if isinstance(body, Mapping):
        return {key: _plain(value) for key, value in body.items()}
    if isinstance(body, list | tuple):
        return [_plain(value) for value in body]
    return body


def retry_delay(
    request: httpx.Request, attempt: int, retries: Retries, error: Exception | None, response: httpx.Response | None
) -> float | None:
    """The wait before trying `request` again after try `attempt` failed so, or None to stop.
    429s are handled apart (`rate_limit_delay`)."""
    if attempt >= retries.attempts:
        return None
    repeatable = request.method in _REPEATABLE or "Idempotency-Key" in request.headers
    if error is not None:
        return retries.delay(attempt) if repeatable or isinstance(error, _NOT_SENT) else None
    assert response is not None
    if response.status_code >= 500 or (response.status_code == 409 and "Idempotency-Key" in request.headers):
        return retries.delay(attempt) if repeatable else None
    return None


def rate_limit_delay(response: httpx.Response, retries: Retries, waited: float, waits: int) -> float | None:
    """The wait a 429 asks for, while the call's waits stay within the bound (in time, and in
    count: at most 10 waits, whatever `Retry-After` says)."""
    if waits > 10:
        return None
    wait = retry_after(response)
    wait = 1.0 if wait is None else wait
    return wait if waited + wait <= retries.max_rate_limit_wait else None


def outcome(op: Op[T], response: httpx.Response) -> T:
    """The answer as its model, or the typed exception of its error."""
    if response.status_code >= 400:
        raise error_of(response)
    return op.parse(response)


def transport_error(error: httpx.TransportError, request: httpx.Request) -> TransportError:
    return TransportError(f"{request.method} {request.url.path}: {type(error).__name__}: {error}")


def base_headers(token: str) -> dict[str, str]:
    # docs/api/conventions.md "Requests": the token travels in X-Access-Token
    return {"X-Access-Token": token, "Accept": "application/json", "User-Agent": f"comptoir-client/{__version__}"}


def root_of(base_url: str) -> str:
    """The server's root: `https://comptoir.example` or the same with `/v1`, either works."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root
