"""Every resource of the `/v1` API (docs/api/*.md), for the synchronous client.

`async_resources.py` is generated from this file by scripts/generate_client_models.py
(each method that calls `self._run` becomes `async` and awaits it; lists return an
AsyncPaginator): write a change here, then run the script.
Bodies are the generated request models (`models.OrderCreate`...) or plain mappings of the
same fields; answers are the generated read models.

A method whose path names a location or an account takes its id first (the long form,
`orders.get(location_id, order_id)`) or goes without it (the short form, `orders.get(order_id)`),
which asks for the token's own location or account (`/v1/location/orders/:id`,
docs/api/conventions.md "Requests"): `_short` reads either call, `_under` writes either path.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, overload

from pydantic import BaseModel

from comptoir_client import models as m
from comptoir_client._core import RAW, Op, many, one
from comptoir_client._paths import _p, _short, _under
from comptoir_client._sync import EventStream, Paginator, Transport

T = TypeVar("T")
Body = BaseModel | Mapping[str, Any]


class _Resource:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def _run(self, op: Op[T], idempotency_key: str | None = None) -> T:
        return self._t.run(op, idempotency_key)

    def _list(self, op: Op[list[T]]) -> Paginator[T]:
        return Paginator(self._t, op)


class Locations(_Resource):
    """docs/api/locations-accounts.md"""

    def list(self, count: int | None = None) -> Paginator[m.Location]:
        return self._list(Op("GET", "/v1/locations", many(m.Location), params={"count": count}))

    def get(self, location_id: str | None = None) -> m.Location:
        """A location; without its id, the token's own."""
        return self._run(Op("GET", _under("location", location_id), one(m.Location)))

    @overload
    def update(self, body: m.LocationUpdate | Body) -> m.Location: ...
    @overload
    def update(self, location_id: str, body: m.LocationUpdate | Body) -> m.Location: ...
    def update(self, *given: Any, **named: Any) -> m.Location:
        location_id, body = _short(given, named, "location_id? body")
        return self._run(Op("PATCH", _under("location", location_id), one(m.Location), body))


class Accounts(_Resource):
    """docs/api/locations-accounts.md"""

    def list(self, count: int | None = None) -> Paginator[m.Account]:
        return self._list(Op("GET", "/v1/accounts", many(m.Account), params={"count": count}))

    def get(self, account_id: str | None = None) -> m.Account:
        """An account; without its id, the token's own (an account-level token)."""
        return self._run(Op("GET", _under("account", account_id), one(m.Account)))


class Users(_Resource):
    def me(self) -> m.User:
        """The user who authorised the connection (`profile` scopes)."""
        return self._run(Op("GET", "/v1/user", one(m.User)))


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
    ) -> Paginator[m.Order]:
        params: dict[str, object] = {"status": status, "private_ref": private_ref, "created_by": created_by}
        params |= {"after": after}
        params |= {"before": before, "customer_id": customer_id, "count": count}
        return self._list(Op("GET", _under("location", location_id, "/orders"), many(m.Order), params=params))

    def list_for_account(
        self, account_id: str | None = None, *, status: str | None = None, count: int | None = None
    ) -> Paginator[m.Order]:
        params = {"status": status, "count": count}
        return self._list(Op("GET", _under("account", account_id, "/orders"), many(m.Order), params=params))

    @overload
    def create(self, body: m.OrderCreate | Body, *, idempotency_key: str | None = None) -> m.Order: ...
    @overload
    def create(
        self, location_id: str, body: m.OrderCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Order: ...
    def create(self, *given: Any, idempotency_key: str | None = None, **named: Any) -> m.Order:
        location_id, body = _short(given, named, "location_id? body")
        op = Op("POST", _under("location", location_id, "/orders"), one(m.Order), body, create=True)
        return self._run(op, idempotency_key)

    @overload
    def get(self, order_id: str) -> m.Order: ...
    @overload
    def get(self, location_id: str, order_id: str) -> m.Order: ...
    def get(self, *given: Any, **named: Any) -> m.Order:
        location_id, order_id = _short(given, named, "location_id? order_id")
        return self._run(Op("GET", _under("location", location_id, "/orders/{}", order_id), one(m.Order)))

    @overload
    def update(self, order_id: str, body: m.OrderUpdate | Body) -> m.Order: ...
    @overload
    def update(self, location_id: str, order_id: str, body: m.OrderUpdate | Body) -> m.Order: ...
    def update(self, *given: Any, **named: Any) -> m.Order:
        location_id, order_id, body = _short(given, named, "location_id? order_id body")
        return self._run(Op("PATCH", _under("location", location_id, "/orders/{}", order_id), one(m.Order), body))

    @overload
    def set_status(self, order_id: str, status: str) -> m.Order: ...
    @overload
    def set_status(self, location_id: str, order_id: str, status: str) -> m.Order: ...
    def set_status(self, *given: Any, **named: Any) -> m.Order:
        """docs/api/orders.md "Statuses": any status may follow any other."""
        location_id, order_id, status = _short(given, named, "location_id? order_id status")
        path = _under("location", location_id, "/orders/{}", order_id)
        return self._run(Op("PATCH", path, one(m.Order), {"status": status}))


class Deliveries(_Resource):
    """docs/api/deliveries.md: an order's quotes and its delivery."""

    @overload
    def list_quotes(self, order_id: str) -> Paginator[m.Quote]: ...
    @overload
    def list_quotes(self, location_id: str, order_id: str) -> Paginator[m.Quote]: ...
    def list_quotes(self, *given: Any, **named: Any) -> Paginator[m.Quote]:
        location_id, order_id = _short(given, named, "location_id? order_id")
        path = _under("location", location_id, "/orders/{}/delivery_quotes", order_id)
        return self._list(Op("GET", path, many(m.Quote)))

    @overload
    def create_quote(
        self, order_id: str, body: m.QuoteCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Quote: ...
    @overload
    def create_quote(
        self, location_id: str, order_id: str, body: m.QuoteCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Quote: ...
    def create_quote(self, *given: Any, idempotency_key: str | None = None, **named: Any) -> m.Quote:
        location_id, order_id, body = _short(given, named, "location_id? order_id body")
        path = _under("location", location_id, "/orders/{}/delivery_quotes", order_id)
        return self._run(Op("POST", path, one(m.Quote), body, create=True), idempotency_key)

    @overload
    def get_quote(self, order_id: str, quote_id: str) -> m.Quote: ...
    @overload
    def get_quote(self, location_id: str, order_id: str, quote_id: str) -> m.Quote: ...
    def get_quote(self, *given: Any, **named: Any) -> m.Quote:
        location_id, order_id, quote_id = _short(given, named, "location_id? order_id quote_id")
        path = _under("location", location_id, "/orders/{}/delivery_quotes/{}", order_id, quote_id)
        return self._run(Op("GET", path, one(m.Quote)))

    @overload
    def accept_quote(self, order_id: str, quote_id: str) -> m.Quote: ...
    @overload
    def accept_quote(self, location_id: str, order_id: str, quote_id: str) -> m.Quote: ...
    def accept_quote(self, *given: Any, **named: Any) -> m.Quote:
        location_id, order_id, quote_id = _short(given, named, "location_id? order_id quote_id")
        path = _under("location", location_id, "/orders/{}/delivery_quotes/{}/accept", order_id, quote_id)
        return self._run(Op("POST", path, one(m.Quote)))

    @overload
    def create(
        self, order_id: str, body: m.DeliveryCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Delivery: ...
    @overload
    def create(
        self, location_id: str, order_id: str, body: m.DeliveryCreate | Body, *, idempotency_key: str | None = None
    ) -> m.Delivery: ...
    def create(self, *given: Any, idempotency_key: str | None = None, **named: Any) -> m.Delivery:
        location_id, order_id, body = _short(given, named, "location_id? order_id body")
        path = _under("location", location_id, "/orders/{}/delivery", order_id)
        return self._run(Op("POST", path, one(m.Delivery), body, create=True), idempotency_key)

    @overload
    def get(self, order_id: str) -> m.Delivery: ...
    @overload
    def get(self, location_id: str, order_id: str) -> m.Delivery: ...
    def get(self, *given: Any, **named: Any) -> m.Delivery:
        location_id, order_id = _short(given, named, "location_id? order_id")
        return self._run(Op("GET", _under("location", location_id, "/orders/{}/delivery", order_id), one(m.Delivery)))

    @overload
    def update(self, order_id: str, body: m.DeliveryUpdate | Body) -> m.Delivery: ...
    @overload
    def update(self, location_id: str, order_id: str, body: m.DeliveryUpdate | Body) -> m.Delivery: ...
    def update(self, *given: Any, **named: Any) -> m.Delivery:
        location_id, order_id, body = _short(given, named, "location_id? order_id body")
        path = _under("location", location_id, "/orders/{}/delivery", order_id)
        return self._run(Op("PATCH", path, one(m.Delivery), body))


class CustomerLists(_Resource):
    """docs/api/customers.md: lists of a location or of an account."""

    def list(self, *, location_id: str | None = None, account_id: str | None = None) -> Paginator[m.CustomerList]:
        return self._list(Op("GET", _owner(location_id, account_id, "customer_lists"), many(m.CustomerList)))

    def create(
        self, body: m.CustomerListWrite | Body, *, location_id: str | None = None, account_id: str | None = None
    ) -> m.CustomerList:
        return self._run(Op("POST", _owner(location_id, account_id, "customer_lists"), one(m.CustomerList), body))

    def get(self, customer_list_id: str) -> m.CustomerList:
        return self._run(Op("GET", _p("/v1/customer_lists/{}", customer_list_id), one(m.CustomerList)))

    def update(self, customer_list_id: str, body: m.CustomerListWrite | Body) -> m.CustomerList:
        return self._run(Op("PATCH", _p("/v1/customer_lists/{}", customer_list_id), one(m.CustomerList), body))

    def delete(self, customer_list_id: str) -> m.CustomerList:
        return self._run(Op("DELETE", _p("/v1/customer_lists/{}", customer_list_id), one(m.CustomerList)))


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
    ) -> Paginator[m.Customer]:
        params = {"private_ref": private_ref, "email": email, "phone": phone, "count": count}
        path = _p("/v1/customer_lists/{}/customers", customer_list_id)
        return self._list(Op("GET", path, many(m.Customer), params=params))

    def create(
        self, customer_list_id: str, body: m.CustomerWrite | Body, *, idempotency_key: str | None = None
    ) -> m.Customer:
        path = _p("/v1/customer_lists/{}/customers", customer_list_id)
        return self._run(Op("POST", path, one(m.Customer), body, create=True), idempotency_key)

    def get(self, customer_list_id: str, customer_id: str) -> m.Customer:
        path = _p("/v1/customer_lists/{}/customers/{}", customer_list_id, customer_id)
        return self._run(Op("GET", path, one(m.Customer)))

    def update(self, customer_list_id: str, customer_id: str, body: m.CustomerWrite | Body) -> m.Customer:
        path = _p("/v1/customer_lists/{}/customers/{}", customer_list_id, customer_id)
        return self._run(Op("PATCH", path, one(m.Customer), body))

    def anonymise(self, customer_list_id: str, customer_id: str) -> m.Customer:
        path = _p("/v1/customer_lists/{}/customers/{}/anonymise", customer_list_id, customer_id)
        return self._run(Op("POST", path, one(m.Customer)))


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
    ) -> Paginator[m.LoyaltyCard]:
        params = {"customer_id": customer_id, "name": name, "ref": ref, "count": count}
        path = _p("/v1/customer_lists/{}/loyalty_cards", customer_list_id)
        return self._list(Op("GET", path, many(m.LoyaltyCard), params=params))

    def create_card(self, customer_list_id: str, body: m.LoyaltyCardCreate | Body) -> m.LoyaltyCard:
        path = _p("/v1/customer_lists/{}/loyalty_cards", customer_list_id)
        return self._run(Op("POST", path, one(m.LoyaltyCard), body))

    def get_card(self, customer_list_id: str, card_id: str) -> m.LoyaltyCard:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}", customer_list_id, card_id)
        return self._run(Op("GET", path, one(m.LoyaltyCard)))

    def update_card(self, customer_list_id: str, card_id: str, body: m.LoyaltyCardUpdate | Body) -> m.LoyaltyCard:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}", customer_list_id, card_id)
        return self._run(Op("PATCH", path, one(m.LoyaltyCard), body))

    def list_operations(self, customer_list_id: str, card_id: str) -> Paginator[m.LoyaltyOperation]:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}/operations", customer_list_id, card_id)
        return self._list(Op("GET", path, many(m.LoyaltyOperation)))

    def create_operation(
        self,
        customer_list_id: str,
        card_id: str,
        body: m.LoyaltyOperationCreate | Body,
        *,
        idempotency_key: str | None = None,
    ) -> m.LoyaltyOperation:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}/operations", customer_list_id, card_id)
        return self._run(Op("POST", path, one(m.LoyaltyOperation), body, create=True), idempotency_key)

    def get_operation(self, customer_list_id: str, card_id: str, operation_id: str) -> m.LoyaltyOperation:
        path = _p("/v1/customer_lists/{}/loyalty_cards/{}/operations/{}", customer_list_id, card_id, operation_id)
        return self._run(Op("GET", path, one(m.LoyaltyOperation)))


class Catalogs(_Resource):
    """docs/api/catalogs.md, docs/api/inventory.md"""

    def list(self, *, location_id: str | None = None, account_id: str | None = None) -> Paginator[m.Catalog]:
        return self._list(Op("GET", _owner(location_id, account_id, "catalogs"), many(m.Catalog)))

    def create(
        self, body: m.CatalogWrite | Body, *, location_id: str | None = None, account_id: str | None = None
    ) -> m.Catalog:
        return self._run(Op("POST", _owner(location_id, account_id, "catalogs"), one(m.Catalog), body))

    def get(self, catalog_id: str, *, hide_data: bool = False) -> m.Catalog:
        params = {"hide_data": "true"} if hide_data else {}
        return self._run(Op("GET", _p("/v1/catalogs/{}", catalog_id), one(m.Catalog), params=params))

    def replace(self, catalog_id: str, body: m.CatalogWrite | Body) -> m.Catalog:
        return self._run(Op("PUT", _p("/v1/catalogs/{}", catalog_id), one(m.Catalog), body))

    def delete(self, catalog_id: str) -> m.Catalog:
        return self._run(Op("DELETE", _p("/v1/catalogs/{}", catalog_id), one(m.Catalog)))

    def list_categories(self, catalog_id: str) -> Paginator[m.Category]:
        return self._list(Op("GET", _p("/v1/catalogs/{}/categories", catalog_id), many(m.Category)))

    def list_products(self, catalog_id: str) -> Paginator[m.Product]:
        return self._list(Op("GET", _p("/v1/catalogs/{}/products", catalog_id), many(m.Product)))

    def get_product(self, catalog_id: str, product_id: str) -> m.Product:
        return self._run(Op("GET", _p("/v1/catalogs/{}/products/{}", catalog_id, product_id), one(m.Product)))

    def get_inventory(self, catalog_id: str, location_id: str | None = None) -> builtins.list[m.InventoryEntry]:
        """The catalog's inventory at a location; without its id, at the token's own."""
        return self._run(Op("GET", _inventory(catalog_id, location_id), many(m.InventoryEntry)))

    @overload
    def replace_inventory(
        self, catalog_id: str, entries: Sequence[Mapping[str, Any]]
    ) -> builtins.list[m.InventoryEntry]: ...
    @overload
    def replace_inventory(
        self, catalog_id: str, location_id: str, entries: Sequence[Mapping[str, Any]]
    ) -> builtins.list[m.InventoryEntry]: ...
    def replace_inventory(self, *given: Any, **named: Any) -> builtins.list[m.InventoryEntry]:
        catalog_id, location_id, entries = _short(given, named, "catalog_id location_id? entries")
        return self._run(Op("PUT", _inventory(catalog_id, location_id), many(m.InventoryEntry), list(entries)))

    @overload
    def patch_inventory(
        self, catalog_id: str, entries: Sequence[Mapping[str, Any]]
    ) -> builtins.list[m.InventoryEntry]: ...
    @overload
    def patch_inventory(
        self, catalog_id: str, location_id: str, entries: Sequence[Mapping[str, Any]]
    ) -> builtins.list[m.InventoryEntry]: ...
    def patch_inventory(self, *given: Any, **named: Any) -> builtins.list[m.InventoryEntry]:
        catalog_id, location_id, entries = _short(given, named, "catalog_id location_id? entries")
        return self._run(Op("PATCH", _inventory(catalog_id, location_id), many(m.InventoryEntry), list(entries)))

    def upload_image(self, catalog_id: str, data: bytes, content_type: str = "image/png") -> m.Image:
        path = _p("/v1/catalogs/{}/images", catalog_id)
        return self._run(Op("POST", path, one(m.Image), content=data, content_type=content_type))

    def list_images(self, catalog_id: str) -> Paginator[m.Image]:
        return self._list(Op("GET", _p("/v1/catalogs/{}/images", catalog_id), many(m.Image)))

    def get_image(self, catalog_id: str, image_id: str) -> m.Image:
        return self._run(Op("GET", _p("/v1/catalogs/{}/images/{}", catalog_id, image_id), one(m.Image)))

    def image_data(self, catalog_id: str, image_id: str) -> bytes:
        return self._run(Op("GET", _p("/v1/catalogs/{}/images/{}/data", catalog_id, image_id), RAW))


class Callback(_Resource):
    """docs/api/callbacks-events.md: the connection's callback, its events and signing secret."""

    def get(self) -> m.Callback:
        return self._run(Op("GET", "/v1/callback", one(m.Callback)))

    def set(self, url: str | None, events: Mapping[str, Sequence[str]]) -> m.Callback:
        """Create or replace the callback; `url` None makes it passive (poll `list_events`)."""
        body = {"url": url, "events": {kind: list(types) for kind, types in events.items()}}
        return self._run(Op("POST", "/v1/callback", one(m.Callback), body))

    def delete(self) -> m.Callback:
        return self._run(Op("DELETE", "/v1/callback", one(m.Callback)))

    def list_events(self, count: int | None = None) -> Paginator[m.EventSummary]:
        return self._list(Op("GET", "/v1/callback/events", many(m.EventSummary), params={"count": count}))

    def get_event(self, event_id: str) -> m.Event:
        return self._run(Op("GET", _p("/v1/callback/events/{}", event_id), one(m.Event)))

    def acknowledge(self, event_id: str) -> m.Event:
        return self._run(Op("DELETE", _p("/v1/callback/events/{}", event_id), one(m.Event)))

    def stream(
        self, last_event_id: str | None = None, *, resume: bool = True, reopen_every: float | None = None
    ) -> EventStream:
        """The pending events, then each new one, as they come (`GET /v1/callback/stream`),
        reconnecting by itself; acknowledge each with `acknowledge(event.id)`. Starts after
        `last_event_id` when given; `resume=False` asks again for every pending event at each
        reconnection (see `EventStream`)."""
        return EventStream(self._t, last_event_id, resume=resume, reopen_every=reopen_every)

    def signing_secret(self) -> m.SigningSecret:
        """The secret of the Standard Webhooks signature (`webhook-signature`)."""
        return self._run(Op("GET", "/v1/callback/signing_secret", one(m.SigningSecret)))

    def rotate_signing_secret(self) -> m.SigningSecret:
        """A new secret; the previous one keeps signing until `previous_secret_expires_at`."""
        return self._run(Op("POST", "/v1/callback/signing_secret/rotate", one(m.SigningSecret)))

    def send_test(self) -> m.TestEvent:
        """POST one test event to the callback URL now; answers what the receiver said."""
        return self._run(Op("POST", "/v1/callback/test", one(m.TestEvent)))

    def resend(self, event_id: str) -> m.Queued:
        """Queue one event (pending or already delivered) for one more delivery, marked as a
        redelivery."""
        return self._run(Op("POST", _p("/v1/callback/events/{}/resend", event_id), one(m.Queued)))

    def replay(self, start: datetime | str, end: datetime | str) -> m.Queued:
        """Queue again the events created from `start` (included) to `end` (excluded), oldest
        first, marked as redeliveries."""
        body = {"from": _time(start), "to": _time(end)}
        return self._run(Op("POST", "/v1/callback/replay", one(m.Queued), body))

    def enable(self) -> m.Callback:
        """Re-enable a callback disabled after failing too long; pending events go out at once."""
        return self._run(Op("POST", "/v1/callback/enable", one(m.Callback)))


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
