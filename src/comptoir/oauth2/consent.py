"""The consent page's choices (spec 5.1-5.2): what the signed-in user may connect (their
locations or accounts, as the scope's level needs), the catalogs and customer lists the scope
binds, and the check of what was chosen on Allow, with the new catalog or customer list
named after the application when one was asked for. The page itself is
`comptoir.oauth2.endpoints`'."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts.service import account_by_id, accounts_of, find_account
from comptoir.auth import people
from comptoir.auth.scopes import Scope
from comptoir.catalogs.service import create_catalog
from comptoir.connections.service import check_binding
from comptoir.customer_lists.service import create_list
from comptoir.errors import FieldError, Unprocessable
from comptoir.locations.service import find_location, locations_owned_by
from comptoir.models import Account, Catalog, CustomerList, Location, User
from comptoir.oauth2 import repository

# docs/api/oauth.md "The consent page": narrows the catalogs and customer lists offered as
# the Location (or Account) select changes; the page works without it (the "choose" step).
NARROW_SCRIPT = (Path(__file__).parent / "templates" / "narrow.js").read_text()
NEW = "new"  # the option that creates a catalog or customer list named after the application
_BINDINGS = (("catalog", Catalog, "Catalog"), ("customer_list", CustomerList, "Customer list"))


@dataclass(frozen=True, slots=True)
class Group:
    """Options of a select under one label (None: no optgroup). `targets`: the locations or
    accounts (public ids) whose choice they fit; None: every one (the targets themselves,
    the new catalog or customer list)."""

    label: str | None
    items: list[tuple[str, str]]  # (value, text)
    targets: tuple[str, ...] | None = None

    def fits(self, target: str | None) -> bool:
        return self.targets is None or target in self.targets


@dataclass(frozen=True, slots=True)
class Choices:
    """The selects of the page: `targets` (None when the scope connects no location or
    account; empty when the user has none to connect), then one select per binding, and
    `blocked`: for each target, why it cannot be connected under the scope, in plain words
    (docs/api/oauth.md "The consent page")."""

    targets: list[Group] | None
    selects: list[dict[str, Any]]
    blocked: dict[str, list[str]] = field(default_factory=dict)

    @property
    def target_ids(self) -> list[str]:
        return [value for group in self.targets or [] for value, _ in group.items]


async def choices(db: AsyncSession, user: User, scope: Scope, client_name: str) -> Choices:
    """The "Location" or "Account", "Catalog" and "Customer list" selects the scope needs,
    each catalog and customer list grouped with the targets it fits (spec 5.1)."""
    accounts, locations = await _owned(db, user) if scope.level else ([], [])
    targets = _target_options(scope.level, accounts, locations) if scope.level else None
    if targets is not None and not targets:
        return Choices(targets, [])
    names = {value: text for group in targets or [] for value, text in group.items}
    level = scope.level or "location"  # a scope naming a catalog or list has a level (spec 5.1)
    selects = []
    blocked: dict[str, list[str]] = {}
    for field_name, model, label in _BINDINGS:
        if not scope.allows(field_name):
            continue
        groups = await _binding_options(db, level, model, accounts, locations)
        creatable = scope.allows(field_name, "write")  # an application that may fill it
        if creatable:
            groups.append(Group(None, [(NEW, f"A new {label.lower()} named “{client_name}”")]))
        else:
            for target, name in names.items():
                if not any(group.fits(target) for group in groups):
                    blocked.setdefault(target, []).append(_cannot(level, label, name, target, locations))
        selects.append({"field": field_name, "label": label, "groups": groups, "creatable": creatable})
    return Choices(targets, selects, blocked)


def _cannot(level: str, label: str, name: str, target: str, locations: list[tuple[Location, Account]]) -> str:
    """Why `target` (named `name`) cannot be connected: no `label` it may use, and the
    scope may only read one, not create it; and what would make it possible."""
    noun = label.lower()
    where = f"for {name}"
    if level == "location":
        account = next((owner.name for loc, owner in locations if loc.public_id == target), None)
        if account is not None:
            where += f" (or for the whole account {account})"
    return (
        f"{name} cannot be connected: it has no {noun} this application can use, and the application "
        f"may only read a {noun}, not create one. Create a {noun} {where} in the back office, "
        "then come back to this page."
    )


async def _owned(db: AsyncSession, user: User) -> tuple[list[Account], list[tuple[Location, Account]]]:
    return await accounts_of(db, user), await locations_owned_by(db, user)


def _target_options(level: str, accounts: list[Account], locations: list[tuple[Location, Account]]) -> list[Group]:
    if level == "account":
        return [Group(None, [(account.public_id, account.name) for account in accounts])]
    groups: list[Group] = []
    for account in accounts:
        items = [(loc.public_id, loc.name) for loc, owner in locations if owner.id == account.id]
        if items:
            groups.append(Group(account.name if len(accounts) > 1 else None, items))
    return groups


async def _binding_options(
    db: AsyncSession,
    level: str,
    model: type[Catalog] | type[CustomerList],
    accounts: list[Account],
    locations: list[tuple[Location, Account]],
) -> list[Group]:
    """Every catalog (or customer list) of the user's accounts, grouped by location, then
    account-level ones, each group with the targets it fits (spec 5.1): at the location
    level, a location's own and its account's; at the account level, the account's and its
    locations'. The page offers those of the chosen target (its script narrows them as the
    choice changes); Allow checks them again."""
    ids = [a.id for a in accounts]
    rows: list[Catalog] | list[CustomerList] = (
        await repository.bindable(db, Catalog, ids)
        if model is Catalog
        else await repository.bindable(db, CustomerList, ids)
    )
    groups: list[Group] = []
    for location, owner in locations:
        items = [(row.public_id, row.name) for row in rows if row.location_id == location.id]
        if items:
            fits = location.public_id if level == "location" else owner.public_id
            groups.append(Group(location.name, items, (fits,)))
    for account in accounts:
        items = [(row.public_id, row.name) for row in rows if row.location_id is None and row.account_id == account.id]
        if items:
            fits_all = tuple(loc.public_id for loc, owner in locations if owner.id == account.id)
            groups.append(
                Group(
                    f"{account.name} (whole account)", items, fits_all if level == "location" else (account.public_id,)
                )
            )
    return groups


# --- Allow ------------------------------------------------------------------------------


class ChoiceRefused(Exception):
    """What is wrong with the choices, in the page's words."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


@dataclass(frozen=True, slots=True)
class Choice:
    """What the user chose and may connect."""

    location: Location | None
    account: Account | None
    catalog: Catalog | None
    customer_list: CustomerList | None


async def check_choice(
    db: AsyncSession, user: User, scope: Scope, chosen: dict[str, str], client_name: str, name: str
) -> Choice:
    """Checks the choices (`chosen`: "target", "catalog", "customer_list") as the connection
    will (spec 5.1) and creates the new catalog or customer list if one was asked for.
    ChoiceRefused changes nothing."""
    target = await _target(db, user, scope, chosen["target"]) if scope.level else None
    if scope.level and target is None:
        raise ChoiceRefused([f"{scope.level.capitalize()}: choose one of the list."])
    if target is not None and any(not chosen[f] and scope.allows(f) for f, _, _ in _BINDINGS):
        blocked = (await choices(db, user, scope, client_name)).blocked.get(target.public_id)
        if blocked:  # what the page says of this target: it cannot be connected, and why
            raise ChoiceRefused(blocked)
    location = target if isinstance(target, Location) else None
    account = target if isinstance(target, Account) else None
    bound: dict[str, Catalog | CustomerList | None] = {}
    try:
        async with db.begin_nested():  # rolled back, new catalog or list included, on refusal
            catalog = await _bound(db, Catalog, chosen["catalog"], target, client_name)
            bound["catalog"] = catalog
            customer_list = await _bound(db, CustomerList, chosen["customer_list"], target, client_name)
            bound["customer_list"] = customer_list
            await check_binding(
                db,
                user=user,
                scope=scope,
                location=location,
                account=account,
                catalog=catalog,
                customer_list=customer_list,
                name=name,
            )
    except Unprocessable as exc:
        raise ChoiceRefused([_refusal(e.field, e.message, bound.get(e.field), target) for e in exc.errors]) from None
    return Choice(location, account, catalog, customer_list)


async def _target(db: AsyncSession, user: User, scope: Scope, public_id: str | None) -> Location | Account | None:
    """The location or account the user chose, if the user owns it."""
    if not public_id:
        return None
    if scope.level == "location":
        found = await find_location(db, public_id)
        return found[0] if found is not None and people.owns(user.id, found[1]) else None
    account = await find_account(db, public_id)
    return account if people.owns(user.id, account) else None


def _label(field: str) -> str:
    return field.replace("_", " ").capitalize()


def _refusal(field: str, message: str, row: Catalog | CustomerList | None, target: Location | Account | None) -> str:
    """A refused choice in the page's words: which catalog or list does not fit, and why."""
    label = _label(field)
    if row is not None and target is not None and message.startswith("is not a"):
        others = "its account" if isinstance(target, Location) else "its locations"
        return f"{label}: “{row.name}” is not a {label.lower()} of {target.name} or of {others}."
    return f"{label}: {message}"


async def _bound(
    db: AsyncSession,
    model: type[Catalog] | type[CustomerList],
    value: str,
    target: Location | Account | None,
    name: str,
) -> Any:
    """The catalog or customer list chosen, or a new one named after the application, made
    at the chosen location or account (with its `.create` event, caused by no connection)."""
    if value != NEW:
        return await repository.binding_by_public_id(db, model, value) if value else None
    location = target if isinstance(target, Location) else None
    account = target if isinstance(target, Account) else await account_by_id(db, target.account_id)  # type: ignore[union-attr]
    assert account is not None  # a location's account
    try:
        if model is Catalog:
            return (await create_catalog(db, None, account=account, location=location, name=name)).row
        return (await create_list(db, None, account=account, location=location, name=name)).row
    except Unprocessable as exc:  # the name is taken: shown against the select
        raise Unprocessable([FieldError(model.KIND, e.message) for e in exc.errors]) from None
