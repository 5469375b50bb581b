"""Who may change a catalog or a customer list (spec 4.3, 4.4, 5.1;
docs/api/catalogs.md "Access"): the one rule both features apply before a rename, update or
delete. Reading them is `Ctx.may_use` (`auth.scopes.reaches_binding`)."""

from __future__ import annotations

from comptoir.auth.context import Bound, Ctx
from comptoir.errors import Forbidden, Unauthorized


def check_modify(ctx: Ctx, resource: str, row: Bound, action: str, *, bound_action: str, what: str) -> None:
    """`resource` is "catalog" or "customer_list", `what` how messages name it. A location
    token may `bound_action` (update a catalog, rename a list) the account-level one it is
    bound to with `<resource>.write`; any other `action` on an account-level one with a
    location token is a 401. Otherwise the connection needs `<resource>.write` on the one
    it is bound to, or `all_<resource>s.write` (403)."""
    bound = ctx.catalog_id if resource == "catalog" else ctx.customer_list_id
    bound_write = bound == row.id and ctx.scope.allows(resource, "write")
    if ctx.level == "location" and row.location_id is None and not (action == bound_action and bound_write):
        raise Unauthorized(f"A location-level token cannot {action} an account-level {what}")
    if not (bound_write or ctx.scope.allows(f"all_{resource}s", "write")):
        raise Forbidden(f"The connection's scope ({ctx.scope}) does not allow this request: it needs {resource}.write")
