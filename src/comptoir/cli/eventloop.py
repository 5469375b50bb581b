"""The event loop of the commands that keep running (`worker`, `sandbox`): uvloop where it is
installed, as `serve` gets it from uvicorn (`loop="auto"`), asyncio's own elsewhere.

uvloop comes with `uvicorn[standard]` on Linux and macOS. A delivery worker on asyncio's loop
spent about a sixth of its CPU in the selector and the socket transports
(docs/performance.md "A callback delivery").
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is installed wherever uvicorn's is
        return asyncio.run(main)
    return uvloop.run(main)
