"""A seed file, read and loaded through the services the API uses (docs/sandbox.md "The seed
file").

Every entity is made by the call its API endpoint (or, for what the API does not create:
users, accounts, locations, applications, connections, the back office and `comptoir admin`)
makes, with the request body parsed by the endpoint's own model: the same rules, the same
error messages, the same events. A refusal names the seed file and the path of the bad field
in it (`seed.json: locations[1].opening_hours.monday[0].from: ...`).

Entries name each other by their `key`; what the server makes of them (ids, tokens, client
secrets) is what `load` returns, keyed the same way (docs/sandbox.md "Ids, tokens and
secrets"). An id, token or client secret an entry gives is used as written: the id is decoded
to its row's integer key under the sandbox's fixed id key (`kit.ids`), and the row made by the
same service call takes that key (`db.ids.next_key_is`; a location, its number:
`accounts.service.next_location_number_is`); a token or secret is sealed in the row's seed
(`kit.crypto.given_seed`). What an entry does not give is stable: a sandbox database has a
fixed id key and is loaded in the file's order, and tokens and client secrets are derived
from the sandbox's fixed server key and seeds fixed by each entry's key
(`kit.crypto.seeds_from`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts.service import create_account, next_location_number_is
from comptoir.applications.service import client_secret, create_client, given_secret_seed
from comptoir.auth.access import B64TOKEN
from comptoir.auth.context import Ctx
from comptoir.auth.scopes import ScopeError, parse_scope
from comptoir.auth.tokens import MAX_TOKEN_LENGTH, resolve
from comptoir.callbacks.schemas import CallbackUpdate
from comptoir.callbacks.service import check_subscription, save_subscription
from comptoir.catalogs.schemas import CatalogCreate
from comptoir.catalogs.service import create_catalog
from comptoir.config import Settings
from comptoir.connections.service import authorise, given_token_seed
from comptoir.customer_lists.schemas import CustomerListWrite
from comptoir.customer_lists.service import create_list, may
from comptoir.customers.schemas import CustomerWrite
from comptoir.customers.service import create_customer
from comptoir.db.connection_cache import ConnectionCache
from comptoir.db.direct import FastReader
from comptoir.db.engine import Database
from comptoir.db.ids import next_key_is
from comptoir.errors import ComptoirError, Unprocessable, validation_error
from comptoir.kit import crypto, ids
from comptoir.kit.codes import parse_country
from comptoir.kit.times import country_of_timezone, main_timezone, parse_timezone_name
from comptoir.kit.wire import WireError
from comptoir.locations.schemas import LocationUpdate
from comptoir.locations.service import create_location, update_location
from comptoir.loyalty.schemas import LoyaltyCardCreate
from comptoir.loyalty.service import create_card
from comptoir.models import Account, Catalog, Customer, CustomerList, Location, LoyaltyCard, OAuthClient, User
from comptoir.models.locations import parse_location_id
from comptoir.users.service import create_user

MAX_BYTES = 64 * 1024 * 1024  # a seed file larger than this is refused before it is read
KINDS = ("users", "accounts", "locations", "catalogs", "customer_lists", "applications", "connections")
M = TypeVar("M", bound=BaseModel)
# docs/sandbox.md "Ids, tokens and secrets": what an entry may give
MIN_SECRET = 8  # characters of a given token or client secret (at most MAX_TOKEN_LENGTH)
# a given location number leaves room for the account's next one, whose id must be readable
# (`kit.ids.LOCATION_ID_PATTERN`: up to 9 digits)
MAX_LOCATION_NUMBER = 10**9 - 2


class SeedError(Exception):
    """A seed file refused: `<file>: <field path>: <message>`, one line."""


@dataclass
class Seed:
    path: str  # as given on the command line: error messages name it so
    data: dict[str, Any]


def read_seed(path: Path) -> Seed:
    """The seed file at `path`, parsed (JSON), its top level checked."""
    shown = str(path)
    try:
        if not path.is_file():
            raise SeedError(f"{shown}: no such file")
        if path.stat().st_size > MAX_BYTES:
            raise SeedError(f"{shown}: larger than {MAX_BYTES // (1024 * 1024)} MB")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SeedError(f"{shown}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise SeedError(f"{shown}: is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SeedError(f"{shown}: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise SeedError(f"{shown}: must hold a JSON object")
    for name in data:
        if name not in KINDS and not name.startswith("$"):  # "$comment" and the like are the author's
            raise SeedError(f"{shown}: {name}: is not a section of a seed file (one of {', '.join(KINDS)})")
    return Seed(shown, data)


@dataclass
class Made:
    """What the load made, by kind and key: the rows, and the answer `load` returns."""

    users: dict[str, User] = field(default_factory=dict)
    accounts: dict[str, Account] = field(default_factory=dict)
    locations: dict[str, tuple[Location, Account]] = field(default_factory=dict)
    catalogs: dict[str, Catalog] = field(default_factory=dict)
    customer_lists: dict[str, CustomerList] = field(default_factory=dict)
    applications: dict[str, OAuthClient] = field(default_factory=dict)
    connections: dict[str, dict[str, Any]] = field(default_factory=dict)  # the token responses
    answer: dict[str, dict[str, Any]] = field(default_factory=lambda: {kind: {} for kind in KINDS})


class _Loader:
    def __init__(self, seed: Seed, key: bytes, settings: Settings) -> None:
        self.seed = seed
        self.key = key
        self.settings = settings
        self.made = Made()
        self.made.answer["customers"] = {}
        self.made.answer["loyalty_cards"] = {}
        self.keys: dict[str, dict[int, str]] = {}  # by kind of id, the path of the entry holding each key
        self.numbers: dict[int, dict[int, str]] = {}  # by account key, the path of each location number
        self.tokens: dict[str, str] = {}  # the path of the entry of each access token
        self.secrets: dict[str, str] = {}  # the path of the entry of each client secret

    # --- reading entries ---------------------------------------------------------------

    def fail(self, where: str, message: str) -> NoReturn:
        raise SeedError(f"{self.seed.path}: {where}: {message}")

    def refused(self, where: str, error: ComptoirError | ValidationError) -> NoReturn:
        """An API refusal, its fields placed under `where`, with the API's own message."""
        if isinstance(error, ValidationError):  # located as FastAPI locates a body's errors
            error = validation_error([{**e, "loc": ("body", *e["loc"])} for e in error.errors()])
        if isinstance(error, Unprocessable) and error.errors:
            first = error.errors[0]
            more = len(error.errors) + error.more - 1
            at = f"{where}.{first.field}" if first.field else where
            self.fail(at, first.message + (f" (and {more} more)" if more else ""))
        self.fail(where, error.message)

    def entries(self, kind: str, within: dict[str, Any] | None = None, at: str = "") -> Iterator[tuple[str, dict]]:
        """(path, entry) of each entry of the `kind` array (of the file, or of `within`),
        each an object with a `key` unique among its kind's."""
        source = self.seed.data if within is None else within
        listed = source.get(kind, [])
        where = f"{at}.{kind}" if at else kind
        if not isinstance(listed, list):
            self.fail(where, "must be an array")
        seen = self.made.answer.setdefault(kind, {})
        for i, entry in enumerate(listed):
            path = f"{where}[{i}]"
            if not isinstance(entry, dict):
                self.fail(path, "must be a JSON object")
            key = entry.get("key")
            if not isinstance(key, str) or not key:
                self.fail(f"{path}.key", "is required: a name other entries and the answer use")
            if key in seen:
                self.fail(f"{path}.key", f"{key!r} names an earlier entry of {kind}")
            seen[key] = None  # claimed; the answer replaces it
            yield path, entry

    def only(self, path: str, entry: dict[str, Any], known: set[str]) -> None:
        for name in entry:
            if name not in known:
                self.fail(f"{path}.{name}", "is not a field of this entry (docs/sandbox.md)")

    def text(self, path: str, entry: dict[str, Any], name: str, *, required: bool = False) -> str | None:
        value = entry.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, str):
            self.fail(f"{path}.{name}", "is required" if value is None else "must be a string")
        return value

    def ref(self, path: str, entry: dict[str, Any], name: str, known: dict[str, Any], *, required: bool) -> Any:
        """The entity an entry names by key in field `name`."""
        key = entry.get(name)
        if key is None and not required:
            return None
        if not isinstance(key, str) or key not in known:
            self.fail(f"{path}.{name}", "is required" if key is None else f"names no earlier entry ({key!r})")
        return known[key]

    def body(self, path: str, model: type[M], given: dict[str, Any]) -> M:
        try:
            return model.model_validate(given)
        except ValidationError as exc:
            self.refused(path, exc)

    # --- ids, tokens and secrets an entry gives (docs/sandbox.md "Ids, tokens and secrets") --

    def given_key(self, path: str, entry: dict[str, Any], name: str, kind: str) -> int | None:
        """The row key behind the id an entry gives in field `name` (an id of `kind`), or None
        when it gives none."""
        if name not in entry:
            return None
        at, value = f"{path}.{name}", entry[name]
        if not isinstance(value, str):
            self.fail(at, "must be a string")
        if len(value) != 6 or any(c not in ids.ALPHABET for c in value):
            self.fail(at, f"{value!r} is not an id: 6 characters, each one of {ids.ALPHABET}")
        key = ids.decode(kind, value)
        if key is None:  # the one 6-character id of the kind whose key would be 0
            self.fail(at, f"{value!r} is the one id that names no row: give another")
        earlier = self.keys.get(kind, {}).get(key)
        if earlier is not None:
            self.fail(at, f"{value!r} is the id of an earlier entry ({earlier})")
        return key

    def keyed(self, session: AsyncSession, model: type[Any], key: int | None) -> AbstractAsyncContextManager[None]:
        """Around the call that makes an entry's row: the row takes `key` when it is given."""
        return nullcontext() if key is None else next_key_is(session, model, key)

    def made_key(self, kind: str, key: int, path: str) -> None:
        self.keys.setdefault(kind, {})[key] = path

    def given_number(self, path: str, entry: dict[str, Any], account: Account) -> int | None:
        """The number of the location id an entry gives, its account's id, a dash and it."""
        if "id" not in entry:
            return None
        at, value = f"{path}.id", entry["id"]
        if not isinstance(value, str):
            self.fail(at, "must be a string")
        parsed = parse_location_id(value)  # as the API reads a location id
        if parsed is None:
            self.fail(
                at, f"{value!r} is not a location id: its account's id, a dash and a number ('{account.public_id}-1')"
            )
        if parsed[0] != account.id:
            self.fail(
                at,
                f"{value!r} is not an id of a location of account {entry['account']!r}: a location's id is"
                f" its account's id ({account.public_id!r}), a dash and a number",
            )
        number = parsed[1]
        if number > MAX_LOCATION_NUMBER:
            self.fail(at, f"a location's number is at most {MAX_LOCATION_NUMBER}: the account's next one follows it")
        earlier = self.numbers.get(account.id, {}).get(number)
        if earlier is not None:
            self.fail(at, f"{value!r} is the id of an earlier entry ({earlier})")
        return number

    def given_secret(self, path: str, entry: dict[str, Any], name: str, made: dict[str, str]) -> str | None:
        """The token or client secret an entry gives in field `name`, unique among those of the
        seed (`made`: the path of the entry of each), or None when it gives none."""
        if name not in entry:
            return None
        at, value = f"{path}.{name}", entry[name]
        if not isinstance(value, str):
            self.fail(at, "must be a string")
        if not MIN_SECRET <= len(value) <= MAX_TOKEN_LENGTH:
            self.fail(at, f"must be {MIN_SECRET} to {MAX_TOKEN_LENGTH} characters")
        if B64TOKEN.fullmatch(value) is None:
            self.fail(at, "must be letters, digits and - . _ ~ + / only, then = only at the end (RFC 6750 b64token)")
        earlier = made.get(value)
        if earlier is not None:
            self.fail(at, f"is the {name.replace('_', ' ')} of an earlier entry ({earlier})")
        return value

    # --- loading, in dependency order ------------------------------------------------

    async def users(self, session: AsyncSession) -> None:
        own = {"key", "id", "email", "password", "first_name", "last_name", "timezone", "locales"}
        for path, entry in self.entries("users"):
            self.only(path, entry, own)
            key = self.given_key(path, entry, "id", User.KIND)
            password = self.text(path, entry, "password", required=True)
            locales = entry.get("locales")
            if locales is not None and not (isinstance(locales, list) and all(isinstance(x, str) for x in locales)):
                self.fail(f"{path}.locales", "must be an array of strings")
            try:
                async with self.keyed(session, User, key):
                    user = await create_user(
                        session,
                        email=self.text(path, entry, "email", required=True) or "",
                        password=password or "",
                        first_name=self.text(path, entry, "first_name"),
                        last_name=self.text(path, entry, "last_name"),
                        timezone=self.text(path, entry, "timezone") or "UTC",
                        locales=locales,
                    )
            except ComptoirError as exc:
                self.refused(path, exc)
            self.made_key(User.KIND, user.id, path)
            self.made.users[entry["key"]] = user
            self.made.answer["users"][entry["key"]] = {"id": user.public_id, "email": user.email, "password": password}

    async def accounts(self, session: AsyncSession) -> None:
        for path, entry in self.entries("accounts"):
            self.only(path, entry, {"key", "id", "owner", "name", "currency"})
            key = self.given_key(path, entry, "id", Account.KIND)
            owner = self.ref(path, entry, "owner", self.made.users, required=True)
            try:
                async with self.keyed(session, Account, key):
                    account = await create_account(
                        session,
                        owner=owner,
                        name=self.text(path, entry, "name", required=True) or "",
                        currency=self.text(path, entry, "currency", required=True) or "",
                    )
            except ComptoirError as exc:
                self.refused(path, exc)
            self.made_key(Account.KIND, account.id, path)
            self.made.accounts[entry["key"]] = account
            self.made.answer["accounts"][entry["key"]] = account.public_id

    async def locations(self, session: AsyncSession) -> None:
        own = {"key", "id", "account", "name", "timezone", "country", "address", "postal_code", "city"}
        patchable = set(LocationUpdate.model_fields)  # set as PATCH /locations/:id sets them
        for path, entry in self.entries("locations"):
            self.only(path, entry, own | patchable)
            account = self.ref(path, entry, "account", self.made.accounts, required=True)
            number = self.given_number(path, entry, account)
            zone, country = self.text(path, entry, "timezone"), self.text(path, entry, "country")
            try:  # the defaults of `comptoir admin create-location`
                zone = parse_timezone_name(zone) if zone else None
            except WireError as exc:
                self.fail(f"{path}.timezone", str(exc))
            try:
                country = parse_country(country) if country else None
            except WireError as exc:
                self.fail(f"{path}.country", str(exc))
            country = country or (country_of_timezone(zone) if zone else None) or "FR"
            zone = zone or main_timezone(country)
            given = {name: value for name, value in entry.items() if name in patchable}
            update = self.body(path, LocationUpdate, given) if given else None
            numbered = nullcontext() if number is None else next_location_number_is(session, account, number)
            try:
                async with numbered:
                    location = await create_location(
                        session,
                        account=account,
                        name=self.text(path, entry, "name", required=True) or "",
                        timezone=zone,
                        country=country,
                        address=self.text(path, entry, "address"),
                        postal_code=self.text(path, entry, "postal_code"),
                        city=self.text(path, entry, "city"),
                    )
                if number is not None and location.number != number:
                    raise RuntimeError(f"{path}: the location took number {location.number}, not {number}")
                if update is not None:
                    await update_location(session, None, location, account, update)
            except ComptoirError as exc:
                self.refused(path, exc)
            self.numbers.setdefault(account.id, {})[location.number] = path
            self.made.locations[entry["key"]] = (location, account)
            self.made.answer["locations"][entry["key"]] = location.public_id

    def owner_of(self, path: str, entry: dict[str, Any]) -> tuple[Account, Location | None]:
        """The account and location an entry with `account` and/or `location` belongs to."""
        found = self.ref(path, entry, "location", self.made.locations, required=False)
        if found is not None:
            location, account = found
            named = self.ref(path, entry, "account", self.made.accounts, required=False)
            if named is not None and named.id != account.id:
                self.fail(f"{path}.account", "is not the account of the entry's location")
            return account, location
        return self.ref(path, entry, "account", self.made.accounts, required=True), None

    async def catalogs(self, session: AsyncSession) -> None:
        for path, entry in self.entries("catalogs"):
            self.only(path, entry, {"key", "id", "account", "location", "name", "data"})
            key = self.given_key(path, entry, "id", Catalog.KIND)
            account, location = self.owner_of(path, entry)
            body = self.body(path, CatalogCreate, {k: v for k, v in entry.items() if k in ("name", "data")})
            try:
                async with self.keyed(session, Catalog, key):
                    made = await create_catalog(
                        session, None, account=account, location=location, name=body.name, data=body.data
                    )
            except ComptoirError as exc:
                self.refused(path, exc)
            self.made_key(Catalog.KIND, made.found.row.id, path)
            self.made.catalogs[entry["key"]] = made.found.row
            self.made.answer["catalogs"][entry["key"]] = made.found.row.public_id

    async def customer_lists(self, session: AsyncSession) -> None:
        for path, entry in self.entries("customer_lists"):
            self.only(path, entry, {"key", "id", "account", "location", "name", "customers", "written_by"})
            key = self.given_key(path, entry, "id", CustomerList.KIND)
            account, location = self.owner_of(path, entry)
            body = self.body(path, CustomerListWrite, {k: v for k, v in entry.items() if k == "name"})
            try:
                async with self.keyed(session, CustomerList, key):
                    found = await create_list(session, None, account=account, location=location, name=body.name)
            except ComptoirError as exc:
                self.refused(path, exc)
            self.made_key(CustomerList.KIND, found.row.id, path)
            self.made.customer_lists[entry["key"]] = found.row
            self.made.answer["customer_lists"][entry["key"]] = found.row.public_id

    async def applications(self, session: AsyncSession) -> None:
        for path, entry in self.entries("applications"):
            self.only(path, entry, {"key", "client_id", "client_secret", "name", "redirect_uris", "owner"})
            key = self.given_key(path, entry, "client_id", OAuthClient.KIND)
            secret = self.given_secret(path, entry, "client_secret", self.secrets)
            uris = entry.get("redirect_uris", [])
            if not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris):
                self.fail(f"{path}.redirect_uris", "must be an array of strings")
            owner = self.ref(path, entry, "owner", self.made.users, required=False)
            given = None if secret is None else given_secret_seed(self.key, secret)
            try:
                with crypto.seeds_from(f"application:{entry['key']}", given):
                    async with self.keyed(session, OAuthClient, key):
                        client = await create_client(
                            session,
                            name=self.text(path, entry, "name", required=True) or "",
                            redirect_uris=uris,
                            owner=owner,
                        )
            except ComptoirError as exc:
                self.refused(path, exc)
            await session.flush()
            made_secret = client_secret(self.key, client)
            if secret is not None and made_secret != secret:
                raise RuntimeError(f"{path}: the application's client secret is not the one given")
            self.made_key(OAuthClient.KIND, client.id, path)
            self.secrets.setdefault(made_secret, path)
            self.made.applications[entry["key"]] = client
            self.made.answer["applications"][entry["key"]] = {
                "client_id": client.public_id,
                "client_secret": made_secret,
            }

    async def connections(self, session: AsyncSession) -> None:
        own = {"key", "application", "user", "scope", "location", "account", "catalog", "customer_list", "name"}
        for path, entry in self.entries("connections"):
            self.only(path, entry, own | {"access_token", "callback"})
            token = self.given_secret(path, entry, "access_token", self.tokens)
            client = self.ref(path, entry, "application", self.made.applications, required=True)
            user = self.ref(path, entry, "user", self.made.users, required=True)
            try:
                scope = parse_scope(self.text(path, entry, "scope", required=True) or "")
            except ScopeError as exc:
                self.fail(f"{path}.scope", str(exc))
            located = self.ref(path, entry, "location", self.made.locations, required=False)
            given = None if token is None else given_token_seed(self.key, token)
            try:
                with crypto.seeds_from(f"connection:{entry['key']}", given):
                    answer = await authorise(
                        session,
                        self.key,
                        client=client,
                        user=user,
                        scope=scope,
                        location=located[0] if located else None,
                        account=self.ref(path, entry, "account", self.made.accounts, required=False),
                        catalog=self.ref(path, entry, "catalog", self.made.catalogs, required=False),
                        customer_list=self.ref(path, entry, "customer_list", self.made.customer_lists, required=False),
                        name=self.text(path, entry, "name") or "",
                    )
            except ComptoirError as exc:
                self.refused(path, exc)
            if token is not None and answer["access_token"] != token:  # no new connection: no new token
                self.fail(
                    f"{path}.access_token",
                    f"this entry authorises the connection of {self.tokens[answer['access_token']]} again (the same"
                    " application, location or account and name), which keeps its token",
                )
            self.tokens.setdefault(answer["access_token"], path)
            self.made.connections[entry["key"]] = answer
            self.made.answer["connections"][entry["key"]] = answer

    # --- what a connection writes ------------------------------------------------------

    async def customers(self, session: AsyncSession, contexts: dict[str, Ctx]) -> None:
        """Customers and their cards, written as the API writes them: by a connection of the
        seed that may write the list (`written_by`, or the first such)."""
        lists = self.seed.data.get("customer_lists", [])
        for i, entry in enumerate(lists):
            path = f"customer_lists[{i}]"
            if not entry.get("customers"):
                continue
            row = self.made.customer_lists[entry["key"]]
            ctx = self.writer(path, entry, row, contexts)
            for at, customer in self.entries("customers", entry, path):
                cards = customer.get("loyalty_cards", [])
                given = {k: v for k, v in customer.items() if k not in ("key", "id", "loyalty_cards")}
                self.only(at, customer, {"key", "id", "loyalty_cards"} | set(CustomerWrite.model_fields))
                key = self.given_key(at, customer, "id", Customer.KIND)
                body = self.body(at, CustomerWrite, given)
                try:
                    async with self.keyed(session, Customer, key):
                        made = await create_customer(session, ctx, row.public_id, body)
                except ComptoirError as exc:
                    self.refused(at, exc)
                self.made_key(Customer.KIND, ids.decode(Customer.KIND, made["id"]) or 0, at)
                self.made.answer["customers"][customer["key"]] = made["id"]
                for card_at, card in self.entries("loyalty_cards", {"loyalty_cards": cards}, at):
                    self.only(card_at, card, {"key", "id", "name", "ref"})
                    card_key = self.given_key(card_at, card, "id", LoyaltyCard.KIND)
                    fields = {"customer_id": made["id"]} | {k: v for k, v in card.items() if k not in ("key", "id")}
                    card_body = self.body(card_at, LoyaltyCardCreate, fields)
                    try:
                        async with self.keyed(session, LoyaltyCard, card_key):
                            made_card = await create_card(session, ctx, row.public_id, card_body)
                    except ComptoirError as exc:
                        self.refused(card_at, exc)
                    self.made_key(LoyaltyCard.KIND, ids.decode(LoyaltyCard.KIND, made_card["id"]) or 0, card_at)
                    self.made.answer["loyalty_cards"][card["key"]] = made_card["id"]

    def writer(self, path: str, entry: dict[str, Any], row: CustomerList, contexts: dict[str, Ctx]) -> Ctx:
        named = entry.get("written_by")
        if named is not None:
            ctx = contexts.get(named) if isinstance(named, str) else None
            if ctx is None:
                self.fail(f"{path}.written_by", f"names no connection of the seed ({named!r})")
            if not may(ctx, row, "write"):
                self.fail(f"{path}.written_by", "this connection may not write the list")
            return ctx
        for ctx in contexts.values():
            if may(ctx, row, "write"):
                return ctx
        return self.fail(
            f"{path}.customers",
            "no connection of the seed may write this list: add one with customer_list.write"
            " or all_customer_lists.write (customers are written as the API writes them)",
        )

    async def callbacks(self, session: AsyncSession, contexts: dict[str, Ctx]) -> None:
        for i, entry in enumerate(self.seed.data.get("connections", [])):
            given = entry.get("callback")
            if given is None:
                continue
            path = f"connections[{i}].callback"
            if not isinstance(given, dict):
                self.fail(path, "must be a JSON object")
            body = self.body(path, CallbackUpdate, given)
            try:
                url, subscribed = await check_subscription(body.url, body.events, self.settings.callback_networks)
                await save_subscription(session, self.key, contexts[entry["key"]], url, subscribed)
            except ComptoirError as exc:
                self.refused(path, exc)


async def load(db: Database, settings: Settings, key: bytes, seed: Seed) -> tuple[dict[str, Any], dict[int, str]]:
    """Load `seed` into `db` (empty, migrated); the answer: by kind, by key, what was made
    (docs/sandbox.md "The ready line"), and the key in the seed of each connection, by its
    row id. Raises SeedError."""
    loader = _Loader(seed, key, settings)
    async with db.transaction() as session:
        await loader.users(session)
        await loader.accounts(session)
        await loader.locations(session)
        await loader.catalogs(session)
        await loader.customer_lists(session)
        await loader.applications(session)
        await loader.connections(session)
    # the connections are committed: their tokens resolve as an API request's do
    reader, cache = FastReader(settings), ConnectionCache(settings)
    try:
        contexts = {
            name: await resolve(reader, cache, key, answer["access_token"])
            for name, answer in loader.made.connections.items()
        }
    finally:
        await reader.close()
    async with db.transaction() as session:
        await loader.customers(session, contexts)
        await loader.callbacks(session, contexts)  # last: the seed's own events reach no callback
    return loader.made.answer, {context.connection_id: name for name, context in contexts.items()}
