"""The client against a real `comptoir serve`, on both databases: every resource, pagination,
a create retried after a dropped answer, and a real callback delivery verified."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import uuid
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from client_live_server import Live
from tests.receiver import running_receiver
from tests.response_schemas import CheckedHTTPTransport
from tests.waiting import wait_until

from comptoir_client import AsyncComptoir, NotFound, Unauthorized, UnprocessableEntity, verify_hmac, verify_standard
from comptoir_client.errors import Conflict, WebhookVerificationError
from comptoir_client.models import OrderCreate
from comptoir_client.oauth import OAuthClient

pytestmark = pytest.mark.e2e


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0\0\0\0")) + chunk(b"IEND", b"")
    )


def test_locations_accounts_and_user(live: Live) -> None:
    with live.client() as client, live.client(live.demo["tokens"]["account"]) as account:
        assert client.locations.get(live.location_id).id == live.location_id
        assert client.locations.update(live.location_id, {"preparation_time": 17}).preparation_time == 17
        assert [a.id for a in account.accounts.list()] == [live.demo["account_id"]]
        assert account.accounts.get(live.demo["account_id"]).currency == "EUR"
        assert sorted(location.id for location in account.locations.list()) == sorted(live.demo["location_ids"])
        assert client.user.me().email == live.demo["user"]["email"]
        with pytest.raises(NotFound):
            client.locations.get("zzzzzz-9")


def test_orders_paginate_over_more_than_250_with_status_changes(live: Live) -> None:
    ref = uuid.uuid4().hex[:8]
    with live.client() as client:
        made = [
            client.orders.create(live.location_id, {"status": "new", "private_ref": f"{ref}-{i}"}) for i in range(260)
        ]
        mine = [order.id for order in client.orders.list(live.location_id) if (order.private_ref or "").startswith(ref)]
        assert sorted(mine) == sorted(order.id for order in made)
        sizes = [len(page.items) for page in client.orders.list(live.location_id, count=100).pages()]
        assert sizes[:2] == [100, 100]
        assert sum(sizes) == len(list(client.orders.list(live.location_id)))
        changed = client.orders.set_status(live.location_id, made[0].id, "accepted")
        assert (changed.status, client.orders.get(live.location_id, made[0].id).status) == ("accepted", "accepted")
        updated = client.orders.update(live.location_id, made[1].id, {"seller_notes": "ring twice"})
        assert updated.seller_notes == "ring twice"
        typed = client.orders.create(live.location_id, OrderCreate(status="new", private_ref=f"{ref}-typed"))
        assert typed.private_ref == f"{ref}-typed"
    with live.client(live.demo["tokens"]["account"]) as account:
        assert next(iter(account.orders.list_for_account(live.demo["account_id"], count=5))).location_id
    with live.client() as client, pytest.raises(UnprocessableEntity) as refused:
        client.orders.create(live.location_id, {"status": "lost"})
    assert [error.field for error in refused.value.errors] == ["status"]


class DropFirstAnswer(CheckedHTTPTransport):
    """Sends the first request to the server, lets it be handled, then loses the answer."""

    dropped = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if not self.dropped:
            self.dropped += 1
            raise httpx.ReadError("connection reset after the request was handled", request=request)
        return response


def test_a_create_retried_after_a_dropped_answer_makes_one_order(live: Live) -> None:
    ref = f"dropped-{uuid.uuid4().hex[:8]}"
    transport = DropFirstAnswer()
    with live.client(transport=transport) as client:
        order = client.orders.create(live.location_id, {"status": "new", "private_ref": ref})
    assert transport.dropped == 1
    with live.client() as client:
        assert [found.id for found in client.orders.list(live.location_id, private_ref=ref)] == [order.id]


def test_deliveries_and_quotes(live: Live) -> None:
    with live.client() as client:
        order = client.orders.create(live.location_id, {"status": "new", "service_type": "delivery"})
        quote = client.deliveries.create_quote(live.location_id, order.id, {"carrier": "Bikes", "fee": "4.50 EUR"})
        assert [q.id for q in client.deliveries.list_quotes(live.location_id, order.id)] == [quote.id]
        assert client.deliveries.get_quote(live.location_id, order.id, quote.id).fee == "4.50 EUR"
        assert client.deliveries.accept_quote(live.location_id, order.id, quote.id).accepted_at is not None
        delivery = client.deliveries.create(live.location_id, order.id, {"status": "pending", "carrier": "Bikes"})
        assert client.deliveries.get(live.location_id, order.id).id == delivery.id
        assert client.deliveries.update(live.location_id, order.id, {"driver_name": "Ana"}).driver_name == "Ana"


def test_customer_lists_customers_and_loyalty(live: Live) -> None:
    with live.client(live.demo["tokens"]["account"]) as account:
        made = account.customer_lists.create(
            {"name": f"List {uuid.uuid4().hex[:6]}"}, account_id=live.demo["account_id"]
        )
        assert made.id in [c.id for c in account.customer_lists.list(account_id=live.demo["account_id"])]
        assert account.customer_lists.update(made.id, {"name": "Renamed"}).name == "Renamed"
        assert account.customer_lists.get(made.id).name == "Renamed"
        assert account.customer_lists.delete(made.id).id == made.id
    with live.client() as client:
        list_id = live.demo["customer_list_id"]
        customer = client.customers.create(
            list_id, {"first_name": "Kate", "email": f"{uuid.uuid4().hex[:8]}@example.com"}
        )
        assert client.customers.get(list_id, customer.id).first_name == "Kate"
        assert client.customers.update(list_id, customer.id, {"last_name": "Bell"}).last_name == "Bell"
        assert [c.id for c in client.customers.list(list_id, email=customer.email)] == [customer.id]
        card = client.loyalty.create_card(list_id, {"customer_id": customer.id, "name": "Gold"})
        assert client.loyalty.update_card(list_id, card.id, {"name": "Platinum"}).name == "Platinum"
        operation = client.loyalty.create_operation(list_id, card.id, {"delta": "12.5"})
        assert client.loyalty.get_operation(list_id, card.id, operation.id).delta == "12.5"
        assert [o.id for o in client.loyalty.list_operations(list_id, card.id)] == [operation.id]
        assert client.loyalty.get_card(list_id, card.id).balance == "12.5"
        assert [c.id for c in client.loyalty.list_cards(list_id, customer_id=customer.id)] == [card.id]
        assert client.customers.anonymise(list_id, customer.id).id == customer.id


def test_catalogs_inventory_and_images(live: Live) -> None:
    with live.client() as client:
        catalog_id = live.demo["catalog_id"]
        assert catalog_id in [c.id for c in client.catalogs.list(location_id=live.location_id)]
        catalog = client.catalogs.get(catalog_id)
        products = list(client.catalogs.list_products(catalog_id))
        assert [p.id for p in products] == [p.id for p in client.catalogs.list_products(catalog_id)]
        if products:
            assert client.catalogs.get_product(catalog_id, products[0].id).id == products[0].id
        with live.client(live.demo["tokens"]["account"]) as account:
            made = account.catalogs.create({"name": "Summer"}, account_id=live.demo["account_id"])
            assert account.catalogs.replace(made.id, {"name": "Winter"}).name == "Winter"
            assert account.catalogs.delete(made.id).id == made.id
        assert isinstance(client.catalogs.get_inventory(catalog_id, live.location_id), list)
        image = client.catalogs.upload_image(catalog_id, png(), "image/png")
        assert client.catalogs.get_image(catalog_id, image.id).md5 == image.md5
        assert client.catalogs.image_data(catalog_id, image.id) == png()
        assert image.id in [i.id for i in client.catalogs.list_images(catalog_id)]
        assert catalog.name


def test_a_passive_callback_lists_gets_and_acknowledges_events(live: Live) -> None:
    _, _, token = live.connection(f"Poller {uuid.uuid4().hex[:6]}")
    with live.client(token) as listener, live.client() as writer:
        assert listener.callback.set(None, {"order": ["create"]}).url is None
        assert listener.callback.get().events == {"order": ["create"]}
        order = writer.orders.create(live.location_id, {"status": "new"})
        [summary] = listener.callback.list_events()
        assert (summary.order_id, summary.event_type) == (order.id, "create")
        assert listener.callback.get_event(summary.id).new_state is not None
        assert listener.callback.acknowledge(summary.id).id == summary.id
        assert list(listener.callback.list_events()) == []
        assert listener.callback.delete().events == {"order": ["create"]}


def test_a_real_delivery_verifies_under_the_hmac_scheme(live: Live) -> None:
    _, secret, token = live.connection(f"Hooked {uuid.uuid4().hex[:6]}")
    with running_receiver() as receiver, live.client(token) as listener, live.client() as writer:
        listener.callback.set(receiver.url("/hook"), {"order": ["create"]})
        order = writer.orders.create(live.location_id, {"status": "new"})
        [received] = receiver.wait_for("/hook", 1)
        delivery = verify_hmac(received.body, received.headers, secret)
        assert (delivery.event.order_id, delivery.event.event_type, delivery.redelivery) == (order.id, "create", False)
        listener.callback.delete()


def test_a_real_delivery_verifies_under_the_standard_webhooks_scheme(live: Live) -> None:
    _, _, token = live.connection(f"Standard {uuid.uuid4().hex[:6]}")
    with running_receiver() as receiver, live.client(token) as listener, live.client() as writer:
        listener.callback.set(receiver.url("/hook"), {"order": ["create"]})
        secret = listener.callback.signing_secret().secret
        order = writer.orders.create(live.location_id, {"status": "new"})
        [received] = receiver.wait_for("/hook", 1)
        delivery = verify_standard(received.body, received.headers, secret)
        assert (delivery.event.order_id, delivery.event.event_type, delivery.redelivery) == (order.id, "create", False)
        with pytest.raises(WebhookVerificationError):
            verify_standard(received.body + b" ", received.headers, secret)
        listener.callback.delete()


def test_test_events_resends_and_replays_arrive_signed_and_marked(live: Live) -> None:
    _, _, token = live.connection(f"Tools {uuid.uuid4().hex[:6]}")
    with running_receiver() as receiver, live.client(token) as listener, live.client() as writer:
        listener.callback.set(receiver.url("/hook"), {"order": ["create"]})
        secret = listener.callback.signing_secret().secret
        tested = listener.callback.send_test()
        assert (tested.delivered, tested.status, tested.error) == (True, 200, None)
        [test] = receiver.wait_for("/hook", 1)
        assert verify_standard(test.body, test.headers, secret).event.event_type == "test"

        start = datetime.now(UTC) - timedelta(seconds=1)
        first = writer.orders.create(live.location_id, {"status": "new"})
        second = writer.orders.create(live.location_id, {"status": "new"})
        delivered = receiver.wait_for("/hook", 3)[1:]
        [first_event, second_event] = [verify_standard(r.body, r.headers, secret) for r in delivered]
        assert [d.event.order_id for d in (first_event, second_event)] == [first.id, second.id]

        assert listener.callback.resend(first_event.event_id).count == 1
        [resent] = receiver.wait_for("/hook", 4)[3:]
        again = verify_standard(resent.body, resent.headers, secret)
        assert (again.event_id, again.redelivery) == (first_event.event_id, True)

        # a replay waits until the resend's outcome is recorded (one replay or resend at a time)
        replays: list[int] = []

        def replayed_once() -> bool:
            try:
                replays.append(listener.callback.replay(start, datetime.now(UTC) + timedelta(seconds=1)).count)
            except Conflict:
                return False
            return True

        wait_until(replayed_once, "the resend recorded, so that a replay is accepted")
        assert replays == [2]
        replayed = [verify_standard(r.body, r.headers, secret) for r in receiver.wait_for("/hook", 6)[4:]]
        assert [(d.event_id, d.redelivery) for d in replayed] == [
            (first_event.event_id, True),
            (second_event.event_id, True),
        ]
        assert listener.callback.enable().disabled_at is None
        listener.callback.delete()


def test_a_revoked_token_is_refused(live: Live) -> None:
    client_id, secret, token = live.connection(f"Revoked {uuid.uuid4().hex[:6]}")
    with OAuthClient(client_id, secret, live.base_url) as oauth:
        oauth.revoke(token)
    with live.client(token) as client, pytest.raises(Unauthorized):
        client.locations.get(live.location_id)


def test_a_location_token_goes_without_its_location_id(live: Live) -> None:
    with live.client() as client:  # the demo's location token: every call below is a short form
        assert client.locations.get().id == live.location_id
        assert client.locations.update({"preparation_time": 19}).preparation_time == 19
        order = client.orders.create({"status": "new", "service_type": "delivery", "private_ref": "short-1"})
        assert order.location_id == live.location_id
        assert client.orders.get(order.id).private_ref == "short-1"
        assert client.orders.update(order.id, {"seller_notes": "short"}).seller_notes == "short"
        assert client.orders.set_status(order.id, "accepted").status == "accepted"
        assert order.id in [o.id for o in client.orders.list(status="accepted")]
        quote = client.deliveries.create_quote(order.id, {"carrier": "Bikes", "fee": "4.50 EUR"})
        assert [q.id for q in client.deliveries.list_quotes(order.id)] == [quote.id]
        assert client.deliveries.get_quote(order.id, quote.id).id == quote.id
        assert client.deliveries.accept_quote(order.id, quote.id).accepted_at is not None
        delivery = client.deliveries.create(order.id, {"status": "pending", "carrier": "Bikes"})
        assert client.deliveries.get(order.id).id == delivery.id
        assert client.deliveries.update(order.id, {"driver_name": "Ana"}).driver_name == "Ana"
        assert live.demo["catalog_id"] in [c.id for c in client.catalogs.list()]
        assert live.demo["customer_list_id"] in [c.id for c in client.customer_lists.list()]
        assert isinstance(client.catalogs.get_inventory(live.demo["catalog_id"]), list)
        assert client.orders.get(live.location_id, order.id).id == order.id  # the long form still works
    with live.client(live.demo["tokens"]["account"]) as account:
        assert account.accounts.get().id == live.demo["account_id"]
        assert order.id in [o.id for o in account.orders.list_for_account(status="accepted")]


async def test_the_async_client_goes_without_the_location_id_too(live: Live) -> None:
    async with AsyncComptoir(live.demo["tokens"]["location"], live.base_url) as client:
        order = await client.orders.create({"status": "new"})
        assert (await client.orders.get(order.id)).location_id == live.location_id
        assert (await client.locations.get()).id == live.location_id
        assert order.id in [o.id async for o in client.orders.list(count=5)]


async def test_the_async_client_reads_the_same_server(live: Live) -> None:
    async with AsyncComptoir(live.demo["tokens"]["location"], live.base_url) as client:
        location = await client.locations.get(live.location_id)
        orders = [order async for order in client.orders.list(live.location_id, count=3)]
    assert location.id == live.location_id
    assert len(orders) >= 3


def test_the_orders_example_runs(live: Live) -> None:
    root = Path(__file__).resolve().parents[3]
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")}
    env |= {
        "COMPTOIR_URL": live.base_url,
        "COMPTOIR_TOKEN": live.demo["tokens"]["location"],
    }
    result = subprocess.run(
        [sys.executable, str(root / "examples" / "orders.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("created ")
    assert lines[0].endswith(": 2.20 EUR")
    assert lines[1].startswith("refused: status: ")
    with live.client() as client:
        assert lines[2].endswith("accepted orders at " + client.locations.get(live.location_id).name)
