"""A connection's scope in words, one sentence per permission, as the back office shows it
(docs/back-office.md "Connections, logs and charts"):
"location[orders.write,catalog.read],profile_with_email" reads
["Read and write orders of Chez Ada Paris", "Read the catalog Menu",
"See your name, email address, time zone and languages"].

Names are filled in where the page has them (the location or account, the bound catalog and
customer list); without them the sentence says "this location", "the bound catalog". A scope
that does not parse (never stored, but a page shows what it finds) is shown as written.
The OAuth consent page keeps its own wording (`oauth2.service.describe`): it asks the user
to choose what this page names.

Registered on the back office's templates (`web/render.py`) as the filter `scope_words`.
"""

from __future__ import annotations

from comptoir.auth.scopes import ScopeError, parse_scope

# resource -> (what it reaches, "{place}": the location or account; "{catalog}", "{list}": bound)
_OBJECT = {
    "orders": "orders of {place}",
    "inventory": "stock of {place}",
    "catalog": "the catalog {catalog}",
    "customer_list": "the customers and loyalty cards of the customer list {list}",
    "all_catalogs": "every catalog of {place}",
    "all_customer_lists": "every customer list of {place}",
}
_VERB = {"read": "Read", "write": "Read and write"}


def scope_words(
    scope: str,
    place: str | None = None,
    catalog: str | None = None,
    customer_list: str | None = None,
) -> list[str]:
    """What the scope lets the application do, in the order the scope names it.

    `place`: the name of the connection's location or account; `catalog`, `customer_list`:
    the names of the catalog and customer list bound to it."""
    try:
        parsed = parse_scope(scope)
    except ScopeError:
        return [scope]
    if parsed.level == "account":
        where = f"{place} and all its locations" if place else "this account and all its locations"
    else:
        where = place or "this location"
    names = {
        "place": where,
        "catalog": catalog or "bound to the connection (none now)",
        "list": customer_list or "bound to the connection (none now)",
    }
    lines = []
    for permission in parsed.permissions:
        resource, _, right = permission.partition(".")
        line = f"{_VERB[right]} {_OBJECT[resource].format(**names)}"
        if resource == "catalog" and parsed.level == "location":
            line += f", and the stock of {where}"  # docs/api/permissions.md: its stock too
        lines.append(line)
    if parsed.profile_with_email:
        lines.append("See your name, email address, time zone and languages")
    elif parsed.profile:
        lines.append("See your name, time zone and languages")
    return lines
