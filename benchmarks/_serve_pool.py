"""`comptoir serve` with its database pools set to TWO_HOSTS_POOL_SIZE connections each
(benchmarks/two_hosts.py): the SQLAlchemy engine's pool (no overflow) and the statement pool
of the hot reads and writes (db/direct.py). Without the variable, the code's own sizes: an
engine pool of 10 with 10 overflow, a statement pool of 10.

    python benchmarks/_serve_pool.py serve --port 8000

The patch is applied at import, so the processes `serve --workers N` starts (spawned, they
import this module again) carry it too.
"""

from __future__ import annotations

import os
from typing import Any

from comptoir.db import direct, engine

SIZE = int(os.environ.get("TWO_HOSTS_POOL_SIZE", "0"))

if SIZE:
    _create_async_engine = engine.create_async_engine
    _statement_pool_init = direct.StatementPool.__init__

    def _engine(url: str, **options: Any) -> Any:
        if "pool_size" in options:
            options.update(pool_size=SIZE, max_overflow=0)
        return _create_async_engine(url, **options)

    def _statement_pool(self: direct.StatementPool, options: dict[str, Any], size: int) -> None:
        _statement_pool_init(self, options, SIZE)

    engine.create_async_engine = _engine  # type: ignore[assignment]
    direct.StatementPool.__init__ = _statement_pool  # type: ignore[method-assign]


if __name__ == "__main__":
    from comptoir.cli import main

    main()
