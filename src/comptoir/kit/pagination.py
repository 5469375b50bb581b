"""Pagination of spec 8.1: what a list is asked and what it answers, for every list.

`count` rows after `after`, the sort key of the last row of the previous page (None for
the first page). A page's next cursor is `seal(key of its last row)`: the HTTP layer
(`http/cursors.py`) seals it for its list and connection and opens the next request's
cursor into `after`; the keyset statement is `db.keyset.paginate`. A list that finds
`after` is not one of its keys calls `refuse()`, which raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

MAX_COUNT = 100


@dataclass(frozen=True, slots=True)
class PageRequest:
    count: int
    after: list[Any] | None
    seal: Callable[[Sequence[Any]], str]
    refuse: Callable[[], NoReturn]


@dataclass(slots=True)
class Page:
    rows: list[Any]
    next_cursor: str | None

    def headers(self) -> dict[str, str]:
        return {"X-Cursor-Next": self.next_cursor} if self.next_cursor else {}


def page_of(items: Sequence[Any], page: PageRequest) -> Page:
    """A page of a list held in memory (a product's skus), keyed by position."""
    start = 0
    if page.after is not None:
        [last] = page.after if len(page.after) == 1 else [None]
        if not isinstance(last, int) or isinstance(last, bool) or not 0 <= last < 2**31:
            page.refuse()
        start = last + 1
    rows = list(items[start : start + page.count])
    more = start + page.count < len(items)
    return Page(rows=rows, next_cursor=page.seal([start + page.count - 1]) if more else None)
