"""`comptoir demo`: demo data an integrator can call the API with at once.

docs/operations.md "Commands": a demo user, account, two locations, a catalog and a customer list of
the first location, an OAuth client and two connections; running it again gives the same
output (tokens and secrets are derived from the server key, so they are stable too).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts.service import accounts_of, create_account
from comptoir.applications.service import client_secret, clients_owned_by, create_client
from comptoir.auth.scopes import parse_scope
from comptoir.catalogs.service import catalogs_by_name, create_catalog
from comptoir.config import Settings
from comptoir.connections.service import authorise
from comptoir.customer_lists.service import create_list, lists_by_name
from comptoir.db.engine import advisory_lock
from comptoir.locations.service import create_location, locations_of_account
from comptoir.users.service import create_user, find_user_by_email

EMAIL = "demo@comptoir.example"
PASSWORD = "demo-password"  # noqa: S105 - printed by `comptoir demo` on purpose
ACCOUNT = "Demo Bistro"
LOCATIONS = (
    {"name": "Demo Bistro Paris", "address": "12 rue de la Paix", "postal_code": "75002", "city": "Paris"},
    {"name": "Demo Bistro Lyon", "address": "3 place Bellecour", "postal_code": "69002", "city": "Lyon"},
)
MENU = "Demo menu"  # the first location's catalog
CUSTOMERS = "Demo customers"  # and its customer list
CLIENT = "Demo app"
REDIRECT_URI = "http://127.0.0.1:8080/callback"
LOCATION_SCOPE = "location[orders.write,catalog.write,customer_list.write,inventory.write],profile_with_email"
ACCOUNT_SCOPE = "account[orders.write,all_catalogs.write,all_customer_lists.write,inventory.write],profile_with_email"
_LOCK = 0x64656D6F  # "demo": two concurrent runs on PostgreSQL create one set of data
# what a demo installation's callbacks may reach when COMPTOIR_CALLBACK_ALLOWED_NETWORKS is unset
ALLOWED_NETWORKS = "127.0.0.0/8,::1/128"


async def ensure_demo(session: AsyncSession, key: bytes) -> dict[str, Any]:
    await advisory_lock(session, _LOCK)
    user = await find_user_by_email(session, EMAIL)
    if user is None:
        user = await create_user(session, email=EMAIL, password=PASSWORD, first_name="Demo", last_name="User")

    account = next((a for a in await accounts_of(session, user) if a.name == ACCOUNT), None)
    if account is None:
        account = await create_account(session, owner=user, name=ACCOUNT, currency="EUR")

    locations = await locations_of_account(session, account)
    for spec in LOCATIONS[len(locations) :]:
        locations.append(await create_location(session, account=account, timezone="Europe/Paris", country="FR", **spec))
    first = locations[0]

    catalog = next((c for c in await catalogs_by_name(session, account, first) if c.name == MENU), None)
    if catalog is None:  # made as the API makes one: its content, its catalog.create
        catalog = (await create_catalog(session, None, account=account, location=first, name=MENU)).row
    lists = await lists_by_name(session, account, first)
    customer_list = next((c for c in lists if c.name == CUSTOMERS), None)
    if customer_list is None:  # made as the API makes one, with its customer_list.create
        customer_list = (await create_list(session, None, account=account, location=first, name=CUSTOMERS)).row

    client = next((c for c in await clients_owned_by(session, user) if c.name == CLIENT), None)
    if client is None:
        client = await create_client(session, name=CLIENT, redirect_uris=[REDIRECT_URI], owner=user)
    await session.flush()

    location_grant = await authorise(
        session,
        key,
        client=client,
        user=user,
        scope=parse_scope(LOCATION_SCOPE),
        location=first,
        catalog=catalog,
        customer_list=customer_list,
    )
    account_grant = await authorise(
        session, key, client=client, user=user, scope=parse_scope(ACCOUNT_SCOPE), account=account
    )
    return {
        "user": {"email": EMAIL, "password": PASSWORD},
        "client": {"client_id": client.public_id, "client_secret": client_secret(key, client)},
        "account_id": account.public_id,
        "location_ids": [location.public_id for location in locations],
        "catalog_id": catalog.public_id,
        "customer_list_id": customer_list.public_id,
        "tokens": {"location": location_grant["access_token"], "account": account_grant["access_token"]},
    }


async def holds_demo(session: AsyncSession) -> bool:
    """Whether the database holds the demo data (`serve --demo` and `demo` made its user)."""
    return await find_user_by_email(session, EMAIL) is not None


def with_demo_networks(settings: Settings, demo: bool) -> Settings:
    """`settings` as every process and command of a demo installation reads them
    (docs/api/callbacks-events.md "Allowed addresses"): with COMPTOIR_CALLBACK_ALLOWED_NETWORKS
    unset, its callbacks may reach this machine (loopback), so that `serve`, `worker` and
    `admin callback-test` allow the same addresses. `demo`: the database holds the demo data."""
    if not demo or "callback_allowed_networks" in settings.model_fields_set:
        return settings
    return settings.model_copy(update={"callback_allowed_networks": ALLOWED_NETWORKS})
