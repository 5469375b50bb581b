"""The paths of the resources (resources.py, and async_resources.py generated from it): a
method's long form names a location or an account (`/v1/locations/:id/...`), its short form
the token's own (`/v1/location/...`, docs/api/conventions.md "Requests")."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote


def _p(template: str, *ids: str) -> str:
    """A path with its ids percent-encoded (an id never moves the request elsewhere)."""
    return template.format(*(quote(str(value), safe="") for value in ids))


def _under(owner: str, owner_id: str | None, rest: str = "", *ids: str, within: str = "/v1") -> str:
    """`/v1/locations/:id<rest>` (`owner` "location", or "account"), or with `owner_id` None the
    short form `/v1/location<rest>`: the token's own location (or account)."""
    return within + (f"/{owner}" if owner_id is None else _p(f"/{owner}s/{{}}", owner_id)) + _p(rest, *ids)


def _short(given: tuple[Any, ...], named: dict[str, Any], parameters: str) -> tuple[Any, ...]:
    """A call's arguments in the order of `parameters` (its long form), the one marked `?` (a
    location's or account's id) None when the call leaves it out (its short form), by position
    or by name: `_short(("or1",), {}, "location_id? order_id") == (None, "or1")`."""
    names = parameters.replace("?", "").split()
    optional = next(name.rstrip("?") for name in parameters.split() if name.endswith("?"))
    long_form = optional in named or len(given) + len(named) == len(names)
    shown = names if long_form else [name for name in names if name != optional]
    values = dict(zip(shown, given, strict=False))
    if (
        len(given) > len(shown)
        or named.keys() & values.keys()
        or named.keys() - set(shown)
        or len(values) + len(named) != len(shown)
    ):
        short = [name for name in names if name != optional]
        raise TypeError(
            f"expected ({', '.join(names)}) or ({', '.join(short)}), got {len(given)} positional {sorted(named)}"
        )
    values |= named
    return tuple(values.get(name) for name in names)
