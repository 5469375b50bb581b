"""Every resource of the `/v1` API for the asyncio client: generated from resources.py by
scripts/generate_client_models.py, do not edit by hand (see resources.py)."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, overload

from pydantic import BaseModel

from comptoir_client import models as m
from comptoir_client._async import AsyncEventStream, AsyncPaginator, AsyncTransport
from comptoir_client._core import RAW, Op, many, one
from comptoir_client._paths import _p, _short, _under

T = TypeVar("T")
Body = BaseModel | Mapping[str, Any]


class _Resource:
    def __init__(self, transport: AsyncTransport) -> None:
        self._t = transport

    async def _run(self, op: Op[T], idempotency_key: str | None = None) -> T:
        return await self._t.run(op, idempotency_key)

    def _list(self, op: Op[list[T]]) -> AsyncPaginator[T]:
        return AsyncPaginator(self._t, op)


class Locations(_Resource):
    """docs/api/locations-accounts.md"""

    def list(self, count: int | None = None) -> AsyncPaginator[m.Location]:
        return self._list(Op("GET", "/v1/locations", many(m.Location), params={"count": count}))

    async def get(self, location_id: str | None = None) -> m.Location:
        """A location; without its id, the token's own."""
        return await self._run(Op("GET", _under("location", location_id), one(m.Location)))

    @overload
    async def update(self, body: m.LocationUpdate | Body) -> m.Location: ...
    @overload
    async def update(self, location_id: str, body: m.LocationUpdate | Body) -> m.Location: ...
    async def update(self, *given: Any, **named: Any) -> m.Location:
        location_id, body = _short(given, named, "location_id? body")
        return await self._run(Op("PATCH", _under("location", location_id), one(m.Location), body))


class Accounts(_Resource):
    """docs/api/locations-accounts.md"""

    def list(self, count: int | None = None) -> AsyncPaginator[m.Account]:
        return self._list(Op("GET", "/v1/accounts", many(m.Account), params={"count": count}))

    async def get(self, account_id: str | None = None) -> m.Account:
        """An account; without its id, the token's own (an account-level token)."""
        return await self._run(Op("GET", _under("account", account_id), one(m.Account)))


class Users(_Resource):
    async def me(self) -> m.User:
        """The user who authorised the connection (`profile` scopes)."""
        return await self._run(Op("GET", "/v1/user", one(m.User)))


class Orders(_Resource):
    """docs/api/orders.md"""

    def list(
        self,
        location_id: str | None = None,
        *,
        status: str | None = None,
        private_ref: str | None = None,
        created_by: str | None = None,
        after: str | None = None,
        before: str | None = None,
        customer_id: str | None = None,
        count: int | None = None,
    ) -> AsyncPaginator[m.Order]:
        params: dict[str, object] = {"status": status, "private_ref": private_ref, "created_by": created_by}
        params |= {"after": after}
        params |= {"before": before, "customer_id": customer_id, "count": count}
        return self._list(Op("GET", _under("location", location_id, "/orders"), many(m.Order), params=params))

    def list_for_account(
        self, account_id: str | None = None, *, status: str | None = None, count: int | None = None
    ) -> AsyncPaginator[m.Order]:
        params = {"status": status, "count": count}
        return self._list(Op("GET", _under("account", account_id, "/orders"), many(m.Order), params=params))

    @overload
    async def create(self, body: m.OrderCreate | Body, *, idempotency_key: str | None = None) -> m.Order: ...
    @overload
    async def create(
        self, location_id: str, body: m.OrderCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Order: ...
    async def create(self, *given: Any, idempotency_key: str | None = None, **named: Any) -> m.Order:
        location_id, body = _short(given, named, "location_id? body")
        op = Op("POST", _under("location", location_id, "/orders"), one(m.Order), body, create=True)
        return await self._run(op, idempotency_key)

    @overload
    async def get(self, order_id: str) -> m.Order: ...
    @overload
    async def get(self, location_id: str, order_id: str) -> m.Order: ...
    async def get(self, *given: Any, **named: Any) -> m.Order:
        location_id, order_id = _short(given, named, "location_id? order_id")
        return await self._run(Op("GET", _under("location", location_id, "/orders/{}", order_id), one(m.Order)))

    @overload
    async def update(self, order_id: str, body: m.OrderUpdate | Body) -> m.Order: ...
    @overload
    async def update(self, location_id: str, order_id: str, body: m.OrderUpdate | Body) -> m.Order: ...
    async def update(self, *given: Any, **named: Any) -> m.Order:
        location_id, order_id, body = _short(given, named, "location_id? order_id body")
        return await self._run(Op("PATCH", _under("location", location_id, "/orders/{}", order_id), one(m.Order), body))

    @overload
    async def set_status(self, order_id: str, status: str) -> m.Order: ...
    @overload
    async def set_status(self, location_id: str, order_id: str, status: str) -> m.Order: ...
    async def set_status(self, *given: Any, **named: Any) -> m.Order:
        """docs/api/orders.md "Statuses": any status may follow any other."""
        location_id, order_id, status = _short(given, named, "location_id? order_id status")
        path = _under("location", location_id, "/orders/{}", order_id)
        return await self._run(Op("PATCH", path, one(m.Order), {"status": status}))


class Deliveries(_Resource):
    """docs/api/deliveries.md: an order's quotes and its delivery."""

    @overload
    def list_quotes(self, order_id: str) -> AsyncPaginator[m.Quote]: ...
    @overload
    def list_quotes(self, location_id: str, order_id: str) -> AsyncPaginator[m.Quote]: ...
    def list_quotes(self, *given: Any, **named: Any) -> AsyncPaginator[m.Quote]:
        location_id, order_id = _short(given, named, "location_id? order_id")
        path = _under("location", location_id, "/orders/{}/delivery_quotes", order_id)
        return self._list(Op("GET", path, many(m.Quote)))

    @overload
    async def create_quote(
        self, order_id: str, body: m.QuoteCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Quote: ...
    @overload
    async def create_quote(
        self, location_id: str, order_id: str, body: m.QuoteCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Quote: ...
    async def create_quote(self, *given: Any, idempotency_key: str | None = None, **named: Any) -> m.Quote:
        location_id, order_id, body = _short(given, named, "location_id? order_id body")
        path = _under("location", location_id, "/orders/{}/delivery_quotes", order_id)
        return await self._run(Op("POST", path, one(m.Quote), body, create=True), idempotency_key)

    @overload
    async def get_quote(self, order_id: str, quote_id: str) -> m.Quote: ...
    @overload
    async def get_quote(self, location_id: str, order_id: str, quote_id: str) -> m.Quote: ...
    async def get_quote(self, *given: Any, **named: Any) -> m.Quote:
        location_id, order_id, quote_id = _short(given, named, "location_id? order_id quote_id")
        path = _under("location", location_id, "/orders/{}/delivery_quotes/{}", order_id, quote_id)
        return await self._run(Op("GET", path, one(m.Quote)))

    @overload
    async def accept_quote(self, order_id: str, quote_id: str) -> m.Quote: ...
    @overload
    async def accept_quote(self, location_id: str, order_id: str, quote_id: str) -> m.Quote: ...
    async def accept_quote(self, *given: Any, **named: Any) -> m.Quote:
        location_id, order_id, quote_id = _short(given, named, "location_id? order_id quote_id")
        path = _under("location", location_id, "/orders/{}/delivery_quotes/{}/accept", order_id, quote_id)
        return await self._run(Op("POST", path, one(m.Quote)))

    @overload
    async def create(
        self, order_id: str, body: m.DeliveryCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Delivery: ...
    @overload
    async def create(
        self, location_id: str, order_id: str, body: m.DeliveryCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Delivery: ...
    async def create(self, *given: Any, idempotency_key: str | None = None, **named: Any) -> m.Delivery:
        location_id, order_id, body = _short(given, named, "location_id? order_id body")
        path = _under("location", location_id, "/orders/{}/delivery", order_id)
        return await self._run(Op("POST", path, one(m.Delivery), body, create=True), idempotency_key)

    @overload
    async def get(self, order_id: str) -> m.Delivery: ...
    @overload
    async def get(self, location_id: str, order_id: str) -> m.Delivery: ...
    async def get(self, *given: Any, **named: Any) -> m.Delivery:
        location_id, order_id = _short(given, named, "location_id? order_id")
        return await self._run(
            Op("GET", _under("location", location_id, "/orders/{}/delivery", order_id), one(m.Delivery))
        )

    @overload
    async def update(self, order_id: str, body: m.DeliveryUpdate | Body) -> m.Delivery: ...
    @overload
    async def update(self, location_id: str, order_id: str, body: m.DeliveryUpdate | Body) -> m.Delivery: ...
    async def update(self, *given: Any, **named: Any) -> m.Delivery:
        location_id, order_id, body = _short(given, named, "location_id? order_id body")
        path = _under("location", location_id, "/orders/{}/delivery", order_id)
        return await self._run(Op("PATCH", path, one(m.Delivery), body))


class CustomerLists(_Resource):
    """docs/api/customers.md: lists of a location or of an account."""

    def list(self, *, location_id: str | None = None, account_id: str | None = None) -> AsyncPaginator[m.CustomerList]:
        return self._list(Op("GET", _owner(location_id, account_id, "customer_lists"), many(m.CustomerList)))

    async def create(
        self, body: m.CustomerListWrite | Body, *, location_id: str | None = None, account_id: str | None = None
    ) -> m.CustomerList:
        return await self._run(Op("POST", _owner(location_id, account_id, "customer_lists"), one(m.CustomerList), body))

    async def get(self, customer_list_id: str) -> m.CustomerList:
        return await self._run(Op("GET", _p("/v1/customer_lists/{}", customer_list_id), one(m.CustomerList)))

    async def update(self, customer_list_id: str, body: m.CustomerListWrite | Body) -> m.CustomerList:
        return await self._run(Op("PATCH", _p("/v1/customer_lists/{}", customer_list_id), one(m.CustomerList), body))

    async def delete(self, customer_list_id: str) -> m.CustomerList:
        return await self._run(Op("DELETE", _p("/v1/customer_lists/{}", customer_list_id), one(m.CustomerList)))


class Customers(_Resource):
    """docs/api/customers.md"""

    def list(
        self,
        customer_list_id: str,
        *,
        private_ref: str | None = None,
        email: str | None = None,
        phone: str | None = None,
        count: int | None = None,
    ) -> AsyncPaginator[m.Customer]:
        params = {"private_ref": private_ref, "email": email, "phone": phone, "count": count}
        path = _p("/v1/customer_lists/{}/customers", customer_list_id)
        return self._list(Op("GET", path, many(m.Customer), params=params))

    async def create(
        self, customer_list_id: str, body: m.CustomerWrite | Body, *, idempotency_key: str | None = None
    ) -> m.Customer:
        path = _p("/v1/customer_lists/{}/customers", customer_list_id)
        return await self._run(Op("POST", path, one(m.Customer), body, create=True), idempotency_key)

    async def get(self, customer_list_id: str, customer_id: str) -> m.Customer:
        path = _p("/v1/customer_lists/{}/customers/{}", customer_list_id, customer_id)
        return await self._run(Op("GET", path, one(m.Customer)))

    async def update(self, customer_list_id: str, customer_id: str, body: m.CustomerWrite | Body) -> m.Customer:
        path = _p("/v1/customer_lists/{}/customers/{}", customer_list_id, customer_id)
        return await self._run(Op("PATCH", path, one(m.Customer), body))

    async def anonymise(self, customer_list_id: str, customer_id: str) -> m.Customer:
        path = _p("/v1/customer_lists/{}/customers/{}/anonymise", customer_list_id, customer_id)
        return await self._run(Op("POST", path, one(m.Customer)))


class Loyalty(_Resource):
    """docs/api/loyalty.md: a customer list's cards and their operations."""

    def list_cards(
        self,
        customer_list_id: str,
        *,
        customer_id: str | None = None,
        name: str | None = None,
        ref: str | None = None,
        count: int | None = None,
    ) -> AsyncPaginator[m.LoyaltyCard]:
        params = {"customer_id": customer_id, "name": name, "ref": ref, "count": count}
        path = _p("/v1/customer_lists/{}/loyalty_cards", customer_list_id)
        return self._list(Op("GET", path, many(m.LoyaltyCard), params=params))

    async def create_card(self, customer_list_id: str, body: m.LoyaltyCardCreate | Body) -> m.LoyaltyCard:
        path = _p("/v1/customer_lists/{}/loyalty_cards", customer_list_id)
        return await self._run(Op("POST", path, one(m.LoyaltyCard), body))

    async def get_card(self, customer_list_id: str, card_id: str) -> m.LoyaltyCard:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}", customer_list_id, card_id)
        return await self._run(Op("GET", path, one(m.LoyaltyCard)))

    async def update_card(self, customer_list_id: str, card_id: str, body: m.LoyaltyCardUpdate | Body) -> m.LoyaltyCard:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}", customer_list_id, card_id)
        return await self._run(Op("PATCH", path, one(m.LoyaltyCard), body))

    def list_operations(self, customer_list_id: str, card_id: str) -> AsyncPaginator[m.LoyaltyOperation]:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}/operations", customer_list_id, card_id)
        return self._list(Op("GET", path, many(m.LoyaltyOperation)))

    async def create_operation(
        self,
        customer_list_id: str,
        card_id: str,
        body: m.LoyaltyOperationCreate | Body,
        *,
        idempotency_key: str | None = None,
    ) -> m.LoyaltyOperation:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}/operations", customer_list_id, card_id)
        return await self._run(Op("POST", path, one(m.LoyaltyOperation), body, create=True), idempotency_key)

    async def get_operation(self, customer_list_id: str, card_id: str, operation_id: str) -> m.LoyaltyOperation:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}/operations/{}", customer_list_id, card_id, operation_id)
        return await self._run(Op("GET", path, one(m.LoyaltyOperation)))


class Catalogs(_Resource):
    """docs/api/catalogs.md, docs/api/inventory.md"""

    def list(self, *, location_id: str | None = None, account_id: str | None = None) -> AsyncPaginator[m.Catalog]:
        return self._list(Op("GET", _owner(location_id, account_id, "catalogs"), many(m.Catalog)))

    async def create(
        self, body: m.CatalogWrite | Body, *, location_id: str | None = None, account_id: str | None = None
    ) -> m.Catalog:
        return await self._run(Op("POST", _owner(location_id, account_id, "catalogs"), one(m.Catalog), body))

    async def get(self, catalog_id: str, *, hide_data: bool = False) -> m.Catalog:
        params = {"hide_data": "true"} if hide_data else {}
        return await self._run(Op("GET", _p("/v1/catalogs/{}", catalog_id), one(m.Catalog), params=params))

    async def replace(self, catalog_id: str, body: m.CatalogWrite | Body) -> m.Catalog:
        return await self._run(Op("PUT", _p("/v1/catalogs/{}", catalog_id), one(m.Catalog), body))

    async def delete(self, catalog_id: str) -> m.Catalog:
        return await self._run(Op("DELETE", _p("/v1/catalogs/{}", catalog_id), one(m.Catalog)))

    def list_categories(self, catalog_id: str) -> AsyncPaginator[m.Category]:
        return self._list(Op("GET", _p("/v1/catalogs/{}/categories", catalog_id), many(m.Category)))

    def list_products(self, catalog_id: str) -> AsyncPaginator[m.Product]:
        return self._list(Op("GET", _p("/v1/catalogs/{}/products", catalog_id), many(m.Product)))

    async def get_product(self, catalog_id: str, product_id: str) -> m.Product:
        return await self._run(Op("GET", _p("/v1/catalogs/{}/products/{}", catalog_id, product_id), one(m.Product)))

    async def get_inventory(self, catalog_id: str, location_id: str | None = None) -> builtins.list[m.InventoryEntry]:
        """The catalog's inventory at a location; without its id, at the token's own."""
        return await self._run(Op("GET", _inventory(catalog_id, location_id), many(m.InventoryEntry)))

    @overload
    async def replace_inventory(
        self, catalog_id: str, entries: Sequence[Mapping[str, Any]]
    ) -> builtins.list[m.InventoryEntry]: ...
    @overload
    async def replace_inventory(
        self, catalog_id: str, location_id: str, entries: Sequence[Mapping[str, Any]]
    ) -> builtins.list[m.InventoryEntry]: ...
    async def replace_inventory(self, *given: Any, **named: Any) -> builtins.list[m.InventoryEntry]:
        catalog_id, location_id, entries = _short(given, named, "catalog_id location_id? entries")
        return await self._run(Op("PUT", _inventory(catalog_id, location_id), many(m.InventoryEntry), list(entries)))

    @overload
    async def patch_inventory(
        self, catalog_id: str, entries: Sequence[Mapping[str, Any]]
    ) -> builtins.list[m.InventoryEntry]: ...
    @overload
    async def patch_inventory(
        self, catalog_id: str, location_id: str, entries: Sequence[Mapping[str, Any]]
    ) -> builtins.list[m.InventoryEntry]: ...
    async def patch_inventory(self, *given: Any, **named: Any) -> builtins.list[m.InventoryEntry]:
        catalog_id, location_id, entries = _short(given, named, "catalog_id location_id? entries")
        return await self._run(Op("PATCH", _inventory(catalog_id, location_id), many(m.InventoryEntry), list(entries)))

    async def upload_image(self, catalog_id: str, data: bytes, content_type: str = "image/png") -> m.Image:
        path = _p("/v1/catalogs/{}/images", catalog_id)
        return await self._run(Op("POST", path, one(m.Image), content=data, content_type=content_type))

    def list_images(self, catalog_id: str) -> AsyncPaginator[m.Image]:
        return self._list(Op("GET", _p("/v1/catalogs/{}/images", catalog_id), many(m.Image)))

    async def get_image(self, catalog_id: str, image_id: str) -> m.Image:
        return await self._run(Op("GET", _p("/v1/catalogs/{}/images/{}", catalog_id, image_id), one(m.Image)))

    async def image_data(self, catalog_id: str, image_id: str) -> bytes:
        return await self._run(Op("GET", _p("/v1/catalogs/{}/images/{}/data", catalog_id, image_id), RAW))


class Callback(_Resource):
    """docs/api/callbacks-events.md: the connection's callback, its events and signing secret."""

    async def get(self) -> m.Callback:
        return await self._run(Op("GET", "/v1/callback", one(m.Callback)))

    async def set(self, url: str | None, events: Mapping[str, Sequence[str]]) -> m.Callback:
        """Create or replace the callback; `url` None makes it passive (poll `list_events`)."""
        body = {"url": url, "events": {kind: list(types) for kind, types in events.items()}}
        return await self._run(Op("POST", "/v1/callback", one(m.Callback), body))

    async def delete(self) -> m.Callback:
        return await self._run(Op("DELETE", "/v1/callback", one(m.Callback)))

    def list_events(self, count: int | None = None) -> AsyncPaginator[m.EventSummary]:
        return self._list(Op("GET", "/v1/callback/events", many(m.EventSummary), params={"count": count}))

    async def get_event(self, event_id: str) -> m.Event:
        return await self._run(Op("GET", _p("/v1/callback/events/{}", event_id), one(m.Event)))

    async def acknowledge(self, event_id: str) -> m.Event:
        return await self._run(Op("DELETE", _p("/v1/callback/events/{}", event_id), one(m.Event)))

    def stream(
        self, last_event_id: str | None = None, *, resume: bool = True, reopen_every: float | None = None
    ) -> AsyncEventStream:
        """The pending events, then each new one, as they come (`GET /v1/callback/stream`),
        reconnecting by itself; acknowledge each with `acknowledge(event.id)`. Starts after
        `last_event_id` when given; `resume=False` asks again for every pending event at each
        reconnection (see `AsyncEventStream`)."""
        return AsyncEventStream(self._t, last_event_id, resume=resume, reopen_every=reopen_every)

    async def signing_secret(self) -> m.SigningSecret:
        """The secret of the Standard Webhooks signature (`webhook-signature`)."""
        return await self._run(Op("GET", "/v1/callback/signing_secret", one(m.SigningSecret)))

    async def rotate_signing_secret(self) -> m.SigningSecret:
        """A new secret; the previous one keeps signing until `previous_secret_expires_at`."""
        return await self._run(Op("POST", "/v1/callback/signing_secret/rotate", one(m.SigningSecret)))

    async def send_test(self) -> m.TestEvent:
        """POST one test event to the callback URL now; answers what the receiver said."""
        return await self._run(Op("POST", "/v1/callback/test", one(m.TestEvent)))

    async def resend(self, event_id: str) -> m.Queued:
        """Queue one event (pending or already delivered) for one more delivery, marked as a
        redelivery."""
        return await self._run(Op("POST", _p("/v1/callback/events/{}/resend", event_id), one(m.Queued)))

    async def replay(self, start: datetime | str, end: datetime | str) -> m.Queued:
        """Queue again the events created from `start` (included) to `end` (excluded), oldest
        first, marked as redeliveries."""
        body = {"from": _time(start), "to": _time(end)}
        return await self._run(Op("POST", "/v1/callback/replay", one(m.Queued), body))

    async def enable(self) -> m.Callback:
        """Re-enable a callback disabled after failing too long; pending events go out at once."""
        return await self._run(Op("POST", "/v1/callback/enable", one(m.Callback)))


def _time(value: datetime | str) -> str:
    return value.isoformat() if isinstance(value, datetime) else value


def _owner(location_id: str | None, account_id: str | None, collection: str) -> str:
    """`/v1/locations/:id/<collection>` or `/v1/accounts/:id/<collection>`, at most one owner;
    with neither, the token's own location (`/v1/location/<collection>`)."""
    if location_id is not None and account_id is not None:
        raise TypeError("give location_id or account_id, not both")
    if account_id is not None:
        return _under("account", account_id, "/" + collection)
    return _under("location", location_id, "/" + collection)


def _inventory(catalog_id: str, location_id: str | None) -> str:
    """A catalog's inventory at a location, or at the token's own (`.../location/inventory`)."""
    return _under("location", location_id, "/inventory", within=_p("/v1/catalogs/{}", catalog_id))
